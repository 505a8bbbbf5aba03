/**
 * The mesh client with a method per endpoint, for the package's own tests: each sends its row of
 * `provider/contracts/mesh.ts` as the package does (the package itself calls `send` with the row).
 */
import { mesh, MeshAuthorizeAnswer, MeshAuthorizeRequest, MeshCaRoots, MeshLeafCertificate, MeshPartition } from "../../provider/contracts/mesh";
import { MeshClient as RowMeshClient, MeshRequestOptions } from "../../provider/mesh-client";
import { waitForPartitionRemoval } from "../../resources/mesh/partition";

export interface MeshAnswer<T> {
  body: T;
  /** Value of `X-Mesh-Index`, when the service sent one. */
  index?: number;
}

export class MeshClient extends RowMeshClient {
  /** Undefined when the partition does not exist. */
  async readPartition(name: string, options: Pick<MeshRequestOptions, "consistent"> = {}): Promise<MeshPartition | undefined> {
    return (await this.send(mesh.readPartition, { params: { name }, options }))?.body;
  }

  async listPartitions(options: Pick<MeshRequestOptions, "consistent"> = {}): Promise<MeshPartition[]> {
    return (await this.send(mesh.listPartitions, { options })).body;
  }

  async createPartition(name: string, description: string): Promise<MeshPartition> {
    return (await this.send(mesh.createPartition, { body: { Name: name, Description: description } })).body;
  }

  async updatePartition(name: string, description: string): Promise<MeshPartition> {
    return (await this.send(mesh.updatePartition, { params: { name }, body: { Name: name, Description: description } })).body;
  }

  async deletePartition(name: string): Promise<void> {
    await this.send(mesh.deletePartition, { params: { name } });
  }

  waitForPartitionRemoval(name: string, timeoutMs: number): Promise<void> {
    return waitForPartitionRemoval(this, name, timeoutMs);
  }

  async authorize(request: MeshAuthorizeRequest, options: Pick<MeshRequestOptions, "namespace" | "partition"> = {}): Promise<MeshAuthorizeAnswer> {
    const body = options.namespace ? { ...request, Namespace: options.namespace } : request;
    return (await this.send(mesh.authorize, { body, options })).body;
  }

  caRoots(options: Omit<MeshRequestOptions, "namespace"> = {}): Promise<MeshAnswer<MeshCaRoots>> {
    return this.send(mesh.caRoots, { options });
  }

  leafCertificate(service: string, options: MeshRequestOptions = {}): Promise<MeshAnswer<MeshLeafCertificate>> {
    return this.send(mesh.leafCertificate, { params: { service }, options });
  }
}
