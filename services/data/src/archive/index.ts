export { zipArchive, type ArchiveEntry, type ArchiveSource } from "./zip-archive";
