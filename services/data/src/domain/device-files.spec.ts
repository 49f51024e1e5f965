import { Code } from "@connectrpc/connect";
import type { AssociationDeletionRepository } from "./association-cleanup";
import { disposeFiles, type DisposalRepositories } from "./device-files";

/** Disposal repositories recording every call in order; the move answers `clash`. */
function world(clash: string | null = null) {
  const calls: string[] = [];
  const associationDeletions = {
    retire: async (a) => void calls.push(`retire ${a.associationId}`),
    moveToOrgRoot: async (id, orgId) => (calls.push(`move ${id} ${orgId}`), clash),
  } as Pick<AssociationDeletionRepository, "retire" | "moveToOrgRoot"> as AssociationDeletionRepository;
  const repositories: DisposalRepositories = { associationDeletions };
  return { repositories, calls };
}

const device = { associationId: "dv_1", associationType: "device", orgId: "og_1", requestedBy: "u" };

describe("disposeFiles", () => {
  it("only records the deletion when nothing is kept", async () => {
    const { repositories, calls } = world();
    await disposeFiles(repositories, device);
    expect(calls).toEqual(["retire dv_1"]);
  });

  it("records the deletion first, then moves the files to the keeping org's root", async () => {
    const { repositories, calls } = world();
    await disposeFiles(repositories, device, "og_1");
    expect(calls).toEqual(["retire dv_1", "move dv_1 og_1"]);
  });

  it("refuses with a 409 naming keep_configurations when a path is taken at the org's root", async () => {
    const { repositories } = world("calib/cam.yaml");
    await expect(disposeFiles(repositories, device, "og_1")).rejects.toMatchObject({
      code: Code.AlreadyExists,
      rawMessage: "keep_configurations: 'calib/cam.yaml' already exists at the root of org 'og_1'",
    });
  });
});
