import { createLogger, openDatabase, type Orm } from "@hangar/shared";
import { createTestDatabase, nullabilityProblems } from "@hangar/test-harness";
import { collectionCatalog } from "../domain/collection-search";
import { datasetCatalog } from "../domain/dataset-search";
import { fileColumns } from "../domain/file-search";
import { fileSortCatalog } from "../domain/files";
import { deviceColumns, eventColumns, messagePathColumns, sessionColumns, topicColumns } from "../domain/query-targets";
import { sessionCatalog } from "../domain/session-search";
import { dataEntities } from "./entities";
import { fileEntities } from "./file-entities";
import { dataMigrations } from "./migrations";

let orm: Orm;

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "data", entities: [...dataEntities, ...fileEntities], migrations: dataMigrations, logger: createLogger("test", "silent") });
}, 120_000);

afterAll(() => orm.close());

// A keyset page trusts these declarations to leave out the null arm: a wrong one skips null rows.
test("the data service's catalogs declare exactly their tables' NOT NULL columns", async () => {
  const em = orm.em.fork();
  const problems = await nullabilityProblems((q, p) => em.execute(q, p), "data", [
    { name: "datasets", catalog: datasetCatalog, tables: { d: "datasets" } },
    { name: "collections", catalog: collectionCatalog, tables: { c: "collections" } },
    { name: "sessions", catalog: sessionCatalog, tables: { s: "sessions" } },
    { name: "files", catalog: fileColumns, tables: { f: "fs_nodes" } },
    { name: "association files", catalog: fileSortCatalog, tables: { f: "fs_nodes" } },
    { name: "message paths", catalog: messagePathColumns, tables: { mp: "message_paths" } },
    { name: "topics", catalog: topicColumns, tables: { t: "topics" } },
    { name: "events", catalog: eventColumns, tables: { e: "robot_events" } },
    { name: "devices", catalog: deviceColumns, tables: { dv: "devices" } },
    { name: "target sessions", catalog: sessionColumns, tables: { s: "sessions" } },
  ]);
  expect(problems).toEqual([]);
});
