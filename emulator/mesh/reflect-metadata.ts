/**
 * The part of the Reflect metadata API that @peculiar/x509's dependency-injection container (tsyringe)
 * needs: defineMetadata, getOwnMetadata and getMetadata. The package expects the application to load a
 * polyfill first and none is a dependency here, so this one is installed when no other is present.
 */
type MetadataByKey = Map<unknown, unknown>;

const metadata = new WeakMap<object, Map<PropertyKey | undefined, MetadataByKey>>();

function table(target: object, propertyKey: PropertyKey | undefined, create: boolean): MetadataByKey | undefined {
  let byProperty = metadata.get(target);
  if (!byProperty) {
    if (!create) return undefined;
    byProperty = new Map();
    metadata.set(target, byProperty);
  }
  let byKey = byProperty.get(propertyKey);
  if (!byKey && create) {
    byKey = new Map();
    byProperty.set(propertyKey, byKey);
  }
  return byKey;
}

function getOwnMetadata(key: unknown, target: object, propertyKey?: PropertyKey): unknown {
  return table(target, propertyKey, false)?.get(key);
}

function getMetadata(key: unknown, target: object, propertyKey?: PropertyKey): unknown {
  // Inherited metadata is found along the prototype chain, as the full API does.
  for (let current: object | null = target; current; current = Object.getPrototypeOf(current)) {
    const found = table(current, propertyKey, false);
    if (found?.has(key)) return found.get(key);
  }
  return undefined;
}

function defineMetadata(key: unknown, value: unknown, target: object, propertyKey?: PropertyKey): void {
  table(target, propertyKey, true)!.set(key, value);
}

const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect.getMetadata !== "function") {
  Object.assign(reflect, { getMetadata, getOwnMetadata, defineMetadata });
}
