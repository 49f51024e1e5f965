import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments, parse } from "yaml";

/** The repository's root, where the manifests' commands (`services/data/dist/main.js`) resolve, as in the image. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/** One container of a Deployment in the manifests, as far as a process needs it. */
export interface ManifestContainer {
  /** The Deployment's name (`data`, `gateway`, `object-store`, ...). */
  name: string;
  command: string[];
  /** The container's environment: `envFrom` config maps first, then `env` (which wins). */
  env: Record<string, string>;
  /** Mount paths of its volumes, which a process gets as directories of its own. */
  mounts: string[];
  /** Its container ports, the first the one its Service fronts (`grpc`, `http`, `s3`). */
  ports: number[];
}

/** What the manifests of an overlay start: the Deployments' containers, by Deployment name. */
export type ManifestComponents = Record<string, ManifestContainer>;

type Yaml = Record<string, any>;

/**
 * Reads the Deployments of `deploy/base` and an overlay (default `dev`) and resolves each container's
 * environment the way Kubernetes would: the `hangar-config` ConfigMap (the base's literals merged
 * with the overlay's), the Secret (`secrets`, standing in for `hangar-secrets`), field references
 * (`metadata.name` becomes the Deployment's name). Plain kustomize features only, without the
 * kustomize binary, so the distributed e2e test starts what the manifests start.
 */
export function readManifests(secrets: Record<string, string>, overlay = "dev"): ManifestComponents {
  const base = path.join(REPO_ROOT, "deploy/base");
  const overlayDir = path.join(REPO_ROOT, "deploy/overlays", overlay);
  const config = { ...configLiterals(base), ...configLiterals(overlayDir) };
  const deployments = [...resourcesOf(base), ...resourcesOf(overlayDir)].filter((doc) => doc.kind === "Deployment");
  return Object.fromEntries(deployments.map((deployment) => [deployment.metadata.name, containerOf(deployment, config, secrets)]));
}

/** The documents of a kustomization's own resource files (not other kustomizations). */
function resourcesOf(dir: string): Yaml[] {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Yaml;
  return (kustomization.resources as string[])
    .filter((resource) => resource.endsWith(".yaml"))
    .flatMap((file) => parseAllDocuments(readFileSync(path.join(dir, file), "utf8")).map((doc) => doc.toJS() as Yaml));
}

/** The `hangar-config` literals a kustomization generates or merges. */
function configLiterals(dir: string): Record<string, string> {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Yaml;
  const generator = (kustomization.configMapGenerator as Yaml[] | undefined)?.find((g) => g.name === "hangar-config");
  return Object.fromEntries(((generator?.literals as string[] | undefined) ?? []).map((literal) => literal.split(/=(.*)/s).slice(0, 2)));
}

function containerOf(deployment: Yaml, config: Record<string, string>, secrets: Record<string, string>): ManifestContainer {
  const name: string = deployment.metadata.name;
  const [container] = deployment.spec.template.spec.containers as Yaml[];
  const env: Record<string, string> = {};
  for (const from of (container!.envFrom as Yaml[] | undefined) ?? []) {
    if (from.configMapRef?.name === "hangar-config") Object.assign(env, config);
  }
  for (const variable of (container!.env as Yaml[] | undefined) ?? []) {
    const value = valueOf(variable, name, config, secrets);
    if (value !== undefined) env[variable.name] = value;
  }
  return {
    name,
    command: container!.command,
    env,
    mounts: ((container!.volumeMounts as Yaml[] | undefined) ?? []).map((m) => m.mountPath),
    ports: ((container!.ports as Yaml[] | undefined) ?? []).map((port) => port.containerPort as number),
  };
}

function valueOf(variable: Yaml, pod: string, config: Record<string, string>, secrets: Record<string, string>): string | undefined {
  if (typeof variable.value === "string") return variable.value;
  const from = variable.valueFrom as Yaml;
  if (from.secretKeyRef) return required(secrets[from.secretKeyRef.key], from.secretKeyRef, variable.name);
  if (from.configMapKeyRef) return required(config[from.configMapKeyRef.key], from.configMapKeyRef, variable.name);
  if (from.fieldRef?.fieldPath === "metadata.name") return pod;
  throw new Error(`${pod}: ${variable.name} has a source the test cannot resolve`);
}

function required(value: string | undefined, ref: Yaml, name: string): string | undefined {
  if (value === undefined && !ref.optional) throw new Error(`${name} refers to ${ref.name}/${ref.key}, which is not set`);
  return value;
}
