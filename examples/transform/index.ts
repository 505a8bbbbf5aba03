/**
 * The transform engine: card numbers encrypted with format-preserving encryption, a national ID
 * masked, and customer e-mails tokenized into a PostgreSQL store.
 *
 * Configure `keep:address` and `keep:token` (a secret), and:
 * - `transform:databaseUrl`: the store's connection string with `{{username}}` and `{{password}}`
 *   slots, e.g. `postgresql://{{username}}:{{password}}@db:5432/tokens`;
 * - `transform:storePassword` (secret): the password of the `tokens` database user;
 * - `transform:ddlPassword` (secret): the password of the `tokens_admin` user that may create tables.
 * The engine must be mounted at `transform`.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

export = async () => {
  const config = new pulumi.Config("transform");

  // Card numbers: FF3-1 over digits, written back as four dash-separated groups.
  const cards = new keep.transform.Template("cards", {
    name: "cards",
    pattern: "(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})",
    alphabet: "builtin/numeric",
    encodeFormat: "$1-$2-$3-$4",
    decodeFormats: { "last-four": "$4" },
  });
  const cardFpe = new keep.transform.Transformation("card-fpe", {
    name: "card-fpe",
    type: "fpe",
    template: cards.name,
    tweakSource: "internal",
    allowedRoles: ["payments"],
  });

  // National IDs: masked, never recoverable.
  const nationalId = new keep.transform.Transformation("national-id", {
    name: "national-id",
    type: "masking",
    template: "builtin/socialsecuritynumber",
    maskingCharacter: "#",
    allowedRoles: ["payments"],
  });

  // E-mails: random tokens kept in PostgreSQL; the passwords never enter the state.
  const store = new keep.transform.Store("tokens-db", {
    name: "tokens-db",
    driver: "postgres",
    connectionString: config.require("databaseUrl"),
    username: "tokens",
    password: { fromConfig: "transform:storePassword" },
  });
  const schema = new keep.transform.StoreSchema("tokens-db-schema", {
    store: store.name,
    username: "tokens_admin",
    password: { fromConfig: "transform:ddlPassword" },
  });
  const emails = new keep.transform.Transformation(
    "emails",
    { name: "emails", type: "tokenization", stores: [store.name], maxTtl: "8760h", allowedRoles: ["payments"] },
    { dependsOn: [schema] },
  );

  const role = new keep.transform.Role("payments", {
    name: "payments",
    transformations: [cardFpe.name, nationalId.name, emails.name],
  });

  // A token made once and kept: the same across runs, a new one only when the address changes.
  const billingContact = new keep.transform.EncodedValue("billing-contact", {
    role: role.name,
    transformation: emails.name,
    value: pulumi.secret("billing@example.com"),
    metadata: "purpose=billing",
  });

  // Functions run in the program once the role exists (its ID is known only after it is created).
  const ready = pulumi.all([role.id, role.name]).apply(([, name]) => name);
  const sampleCard = ready.apply(async (name) => (await keep.transform.encode({ role: name, transformation: "card-fpe", value: "4111 1111 1111 1111" })).encodedValue);
  const maskedId = ready.apply(async (name) => (await keep.transform.encode({ role: name, transformation: "national-id", value: "123-45-6789" })).encodedValue);

  return { sampleCard, maskedId, billingContactToken: billingContact.encodedValue };
};
