import Foundation

/// The three-way merge of one file of a package: what Git's merge driver
/// (`folio merge-file`, set up by `folio git setup`) runs for each file both
/// branches changed, and what ``DocumentPackage/merge(base:ours:theirs:into:)``
/// runs for each file of a package.
///
/// A part file merges object by object through the same per-object merge as
/// ``ObjectGraph/merge(base:ours:theirs:)`` (see <doc:Merging>), and its
/// conflict records with it; what needs the whole document (a link to an
/// object the other side deleted, unique values two objects now share) is
/// settled when the merged package is opened. So however Git splits a
/// package's merge into files, the package it leaves opens as the same
/// document the whole-package merge gives.
public enum PackageFileMerge {
    /// What a file is, by its place in its package.
    public enum Kind: Sendable, Hashable {
        /// `manifest.xml`: the format and the schema.
        case manifest
        /// A part file: one entity's objects.
        case part(entity: String)
        /// A history file: one writer's transactions.
        case history
        /// An externally stored value (its name is its content's hash).
        case blob
    }

    /// A file merged.
    public struct Merged: Sendable {
        /// The merged file's bytes.
        public var contents: Data
        /// The conflicts this merge recorded in it (none: a clean merge).
        public var conflicts: [MergeConflict]
    }

    /// Why a file could not be merged; nothing was written.
    public enum Failure: Error, CustomStringConvertible {
        /// The merge itself refused (schemas that differ, a value it had to read and could not).
        case merge(MergeError)
        /// A version could not be read as such a file.
        case package(PackageError)
        /// The file cannot be merged this way (a format this merge does not know, say).
        case unsupported(String)

        public var description: String {
            switch self {
            case .merge(let error): return error.description
            case .package(let error): return error.description
            case .unsupported(let reason): return reason
            }
        }
    }

    /// Merges the three versions of one file of a package.
    ///
    /// - Parameters:
    ///   - kind: what the file is in its package.
    ///   - base: the common ancestor's version; `nil` when both sides added the file.
    ///   - ours: our version (the result replaces it in Git's driver).
    ///   - theirs: their version.
    ///   - package: the package the file belongs to, as it is on disk (its
    ///     schema decides how a part's values read; its `blobs` folder is where
    ///     externally stored values a merge must compare are read).
    /// - Throws: ``Failure``.
    /// - Complexity: O(the three versions' bytes); a part file's objects are
    ///   merged in O(objects × properties + list lengths × log).
    public static func merge(_ kind: Kind, base: URL?, ours: URL, theirs: URL, package: URL) throws(Failure) -> Merged {
        let versions = try [base, ours, theirs].map { (url: URL?) throws(Failure) -> Data in
            guard let url else { return Data() }
            do { return try Data(contentsOf: url) } catch { throw .unsupported("cannot read \(url.path): \(error.localizedDescription)") }
        }
        let (baseBytes, ourBytes, theirBytes) = (versions[0], versions[1], versions[2])
        if ourBytes == theirBytes || theirBytes == baseBytes { return Merged(contents: ourBytes, conflicts: []) }
        if ourBytes == baseBytes { return Merged(contents: theirBytes, conflicts: []) }
        switch kind {
        case .blob:
            throw .unsupported("two different files under one blob name: a blob's name is its content's hash")
        case .manifest:
            return try mergeManifests(base: base, ours: ours, theirs: theirs, ourBytes: ourBytes)
        case .history:
            throw .unsupported("both sides changed one history file")
        case .part(let entity):
            let schema = try schema(of: package)
            let folder = PackageFolder(path: package.path)
            func records(_ url: URL?) throws(Failure) -> PartRecords {
                guard let url, !(url == base && baseBytes.isEmpty) else {
                    guard let entityDeclaration = schema.entity(named: entity) else {
                        throw .package(.unknownEntity(PackageError.Location(file: ours.path, line: 0, column: 0), name: entity))
                    }
                    return PartRecords(entity: entityDeclaration)
                }
                do { return try PartRecords.read(path: url.path, entity: entity, schema: schema, blobs: folder) } catch {
                    throw .package(error)
                }
            }
            let (b, o, t) = (try records(base), try records(ours), try records(theirs))
            let outcome: ObjectStateMerge.Outcome
            do { outcome = try ObjectStateMerge.merge(base: b.states, ours: o.states, theirs: t.states, schema: schema) } catch {
                throw .merge(error)
            }
            var merged = o
            merged.states = outcome.states
            merged.conflicts = MergeConflict.mergeRecords(base: b.conflicts, ours: o.conflicts, theirs: t.conflicts)
                + outcome.conflicts
            return Merged(contents: merged.bytes(schema: schema), conflicts: outcome.conflicts)
        }
    }

    /// Two manifests both changed: equal schemas keep ours; different ones cannot merge here.
    private static func mergeManifests(base: URL?, ours: URL, theirs: URL, ourBytes: Data) throws(Failure) -> Merged {
        let ourSchema = try manifestSchema(ours)
        let theirSchema = try manifestSchema(theirs)
        guard ourSchema == theirSchema else {
            let difference = SchemaDifference.first(between: ourSchema, and: theirSchema) ?? "the schemas differ"
            throw .merge(.schemaMismatch(side: .theirs, difference: difference))
        }
        return Merged(contents: ourBytes, conflicts: [])
    }

    /// The schema a manifest file declares.
    private static func manifestSchema(_ url: URL) throws(Failure) -> Schema {
        let loader = DocumentLoader(file: url.path, mode: .manifest)
        loader.readsSchemaOnly = true
        do { try loader.parse(path: url.path) } catch { throw .package(error) }
        guard let schema = loader.schema else { throw .unsupported("\(url.path) declares no schema") }
        return schema
    }

    /// The schema of the package at `url`, from its manifest.
    private static func schema(of url: URL) throws(Failure) -> Schema {
        try manifestSchema(url.appendingPathComponent(PackageManifest.fileName))
    }
}
