import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue } from "@hangar/shared";

/**
 * The relation model of datasets and collections: `{user, relation, obj}` tuples. Every member of
 * the owning org is an implicit editor and the creator the implicit owner; stored tuples add to those.
 */
export const RELATIONS: Record<string, string[]> = {
  owner: ["read", "write", "delete", "share"],
  editor: ["read", "write"],
  viewer: ["read"],
};

/** One `{user, relation, obj}` permission tuple as the permission listing shows it. */
export interface PermissionTuple {
  user: string;
  relation: string;
  obj: string;
}

/** A stored tuple of one object: whom (`subject`) it relates how. */
export interface StoredRelation {
  subject: string;
  relation: string;
}

/** An object's permissions: the implicit owner and editor tuples, then the stored ones, and what each relation grants. */
export interface Permissions {
  relations: PermissionTuple[];
  groupPermissions: JsonObject;
}

/** The object a permission tuple names, e.g. `dataset:ds_1` or `collection:cl_1`. */
export function relationObject(kind: string, id: string): string {
  return `${kind}:${id}`;
}

/** Validates one permission tuple of an edit on `obj`, naming the field on error. */
export function checkRelationTuple(tuple: PermissionTuple, obj: string, field: string): StoredRelation {
  if (tuple.user.length === 0) throw invalidArgument(`${field}.user`, "must not be empty");
  if (!(tuple.relation in RELATIONS)) {
    throw invalidArgument(`${field}.relation`, `unknown relation ${quoteValue(tuple.relation)}; expected one of ${Object.keys(RELATIONS).join(", ")}`);
  }
  if (tuple.obj !== "" && tuple.obj !== obj) throw invalidArgument(`${field}.obj`, `must be '${obj}'`);
  return { subject: tuple.user, relation: tuple.relation };
}

/** Checks a whole edit before anything changes (all or nothing): the tuples to remove, then to add. */
export function checkRelationEdit(edit: { add: readonly PermissionTuple[]; remove: readonly PermissionTuple[] }, obj: string): { add: StoredRelation[]; remove: StoredRelation[] } {
  return {
    add: edit.add.map((t, i) => checkRelationTuple(t, obj, `add[${i}]`)),
    remove: edit.remove.map((t, i) => checkRelationTuple(t, obj, `remove[${i}]`)),
  };
}

/** The tuples of `add` not already in `existing`: an edit never stores a tuple twice. */
export function newRelations(add: readonly StoredRelation[], existing: readonly StoredRelation[]): StoredRelation[] {
  const same = (a: StoredRelation) => (b: StoredRelation) => a.subject === b.subject && a.relation === b.relation;
  return add.filter((tuple, i) => !existing.some(same(tuple)) && add.findIndex(same(tuple)) === i);
}

/** The permission listing of an object created by `owner` in `orgId`, with its stored tuples. */
export function permissionsOf(obj: string, owner: { createdBy: string; orgId: string }, stored: readonly StoredRelation[]): Permissions {
  return {
    relations: [
      { user: owner.createdBy, relation: "owner", obj },
      { user: `org:${owner.orgId}#member`, relation: "editor", obj },
      ...stored.map((s) => ({ user: s.subject, relation: s.relation, obj })),
    ],
    groupPermissions: Object.fromEntries(Object.entries(RELATIONS).map(([relation, grants]) => [relation, [...grants]])),
  };
}
