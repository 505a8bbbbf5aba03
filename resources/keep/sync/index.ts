/** Secret sync resources (`keep.sync.*`). */
export { Config } from "./config";
export type { ConfigArgs } from "./config";
export { CloudASmDestination } from "./cloud-a-sm-destination";
export type { CloudASmDestinationArgs } from "./cloud-a-sm-destination";
export { CloudBKvDestination } from "./cloud-b-kv-destination";
export type { CloudBKvDestinationArgs } from "./cloud-b-kv-destination";
export { CloudCSmDestination } from "./cloud-c-sm-destination";
export type { CloudCSmDestinationArgs } from "./cloud-c-sm-destination";
export { RepoHostDestination } from "./repo-host-destination";
export type { RepoHostDestinationArgs } from "./repo-host-destination";
export { WebHostProjectDestination } from "./web-host-project-destination";
export type { WebHostProjectDestinationArgs } from "./web-host-project-destination";
export { Association } from "./association";
export type { AssociationArgs } from "./association";
export { RepoHostApp } from "./repo-host-app";
export type { RepoHostAppArgs } from "./repo-host-app";
