import Foundation

/// The three-way merge of one file of a package: what Git's merge driver
/// (`folio merge-file`, set up by `folio git setup`) runs for each file both
/// branches changed, and what ``DocumentPackage/merge(base:ours:theirs:into:)``
/// runs for each file of a package.
///
/// A part file merges object by object through the same per-object merge as
/// ``ObjectGraph/merge(base:ours:theirs:)`` (see <doc:Merging>), and its
/// conflict records with it — line by line: an object's line equal on both
/// sides, or unchanged on one, is taken as it is, and only the objects both
/// sides changed are parsed and merged; what needs the whole document (a link to an
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
        /// How many ``ObjectState``s the merge built from the three versions:
        /// the measure of its work (tests check it follows the objects both
        /// sides changed, not the part).
        var statesBuilt = 0
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
    /// - Complexity: O(the three versions' bytes), compared line by line; of a
    ///   part file, only the objects both sides changed are read and merged,
    ///   in O(those objects × properties + list lengths × log).
    public static func merge(_ kind: Kind, base: URL?, ours: URL, theirs: URL, package: URL) throws(Failure) -> Merged {
        try merge(kind, base: base, ours: ours, theirs: theirs, package: package, schema: nil)
    }

    /// ``merge(_:base:ours:theirs:package:)`` with the package's schema when the
    /// caller read it already (a package's merge reads it once for all its
    /// files, not once per part).
    ///
    /// - Parameter byLines: `false` reads each version of a part whole, every
    ///   object through the loader and the per-object merge: what the line-by-line
    ///   merge must give byte for byte, kept for the tests that say so.
    static func merge(
        _ kind: Kind, base: URL?, ours: URL, theirs: URL, package: URL, schema knownSchema: Schema?,
        byLines: Bool = true
    ) throws(Failure) -> Merged {
        let versions = try [base, ours, theirs].map { (url: URL?) throws(Failure) -> Data in
            guard let url else { return Data() }
            // Mapped, not read: a part's lines are compared where they lie, and only those taken are copied.
            do { return try Data(contentsOf: url, options: .alwaysMapped) } catch {
                throw .unsupported("cannot read \(url.path): \(error.localizedDescription)")
            }
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
            let schema: Schema
            if let knownSchema { schema = knownSchema } else { schema = try self.schema(of: package) }
            let folder = PackageFolder(path: package.path)
            if byLines, let declaration = schema.entity(named: entity),
                let merged = try mergeLines(
                    entity: declaration, base: base.map { ($0.path, baseBytes) },
                    ours: (ours.path, ourBytes), theirs: (theirs.path, theirBytes),
                    schema: schema, blobs: folder)
            {
                return merged
            }
            return try mergeWhole(
                entity: entity, base: base, baseIsEmpty: baseBytes.isEmpty, ours: ours, theirs: theirs,
                schema: schema, blobs: folder)
        }
    }

    /// A part merged whole: each version read through the loader, every object
    /// merged, the file written again from the merged objects.
    private static func mergeWhole(
        entity: String, base: URL?, baseIsEmpty: Bool, ours: URL, theirs: URL, schema: Schema,
        blobs folder: PackageFolder
    ) throws(Failure) -> Merged {
        func records(_ url: URL?) throws(Failure) -> PartRecords {
            guard let url, !(url == base && baseIsEmpty) else {
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
        merged.conflicts =
            MergeConflict.mergeRecords(base: b.conflicts, ours: o.conflicts, theirs: t.conflicts)
            + outcome.conflicts
        return Merged(
            contents: merged.bytes(schema: schema), conflicts: outcome.conflicts,
            statesBuilt: b.states.count + o.states.count + t.states.count)
    }

    /// A part merged line by line (``PartLines``): per identifier, an object
    /// line equal on both sides, or unchanged on one, is taken as it is; only
    /// objects both sides changed are read (their lines alone) and merged by
    /// ``ObjectStateMerge``; conflict records merge as sets of lines, as
    /// ``MergeConflict/mergeRecords(base:ours:theirs:)`` merges them. The bytes
    /// are those ``mergeWhole(entity:base:baseIsEmpty:ours:theirs:schema:blobs:)``
    /// writes, since Folio writes an object's line, or a record's, from its
    /// value alone. `nil` when a version is not laid out as Folio writes a part:
    /// the caller reads them whole.
    private static func mergeLines(
        entity declaration: Schema.Entity, base: (path: String, bytes: Data)?,
        ours: (path: String, bytes: Data), theirs: (path: String, bytes: Data), schema: Schema,
        blobs: PackageFolder
    )
        throws(Failure) -> Merged?
    {
        let entity = declaration.name
        let b: PartLines
        if let base, !base.bytes.isEmpty {
            guard let lines = PartLines.split(base.bytes, entity: entity) else { return nil }
            b = lines
        } else {
            b = .empty
        }
        guard let o = PartLines.split(ours.bytes, entity: entity),
            let t = PartLines.split(theirs.bytes, entity: entity)
        else { return nil }

        /// Where one identifier's merged object line comes from: nowhere, a version's
        /// line (0 base, 1 ours, 2 theirs), or the merge.
        enum Source { case none, copy(Int, Range<Int>), merged }
        var plan: [(id: UInt64, object: Source, records: [[UInt8]])] = []
        plan.reserveCapacity(max(o.groups.count, t.groups.count))
        // The object lines both sides changed, per version, to be read.
        var contested: [[(range: Range<Int>, number: Int)]] = [[], [], []]
        // The three versions' bytes held once for the whole walk: each comparison is a `memcmp`.
        b.bytes.withUnsafeBytes { bRaw in
            o.bytes.withUnsafeBytes { oRaw in
                t.bytes.withUnsafeBytes { tRaw in
                    func same(_ a: Range<Int>?, _ aBytes: UnsafeRawBufferPointer, _ b: Range<Int>?, _ bBytes: UnsafeRawBufferPointer)
                        -> Bool
                    {
                        guard let a, let b else { return a == nil && b == nil }
                        guard a.count == b.count else { return false }
                        guard let aBase = aBytes.baseAddress, let bBase = bBytes.baseAddress else { return a.isEmpty }
                        return memcmp(aBase + a.lowerBound, bBase + b.lowerBound, a.count) == 0
                    }
                    var (i, j, k) = (0, 0, 0)
                    let none = PartLines.Group(id: 0, object: nil)
                    while i < b.groups.count || j < o.groups.count || k < t.groups.count {
                        let id = min(
                            i < b.groups.count ? b.groups[i].id : .max, j < o.groups.count ? o.groups[j].id : .max,
                            k < t.groups.count ? t.groups[k].id : .max)
                        let bg = i < b.groups.count && b.groups[i].id == id ? b.groups[i] : none
                        let og = j < o.groups.count && o.groups[j].id == id ? o.groups[j] : none
                        let tg = k < t.groups.count && t.groups[k].id == id ? t.groups[k] : none
                        if bg.id == id { i += 1 }
                        if og.id == id { j += 1 }
                        if tg.id == id { k += 1 }
                        let source: Source
                        if same(og.object, oRaw, tg.object, tRaw) || same(tg.object, tRaw, bg.object, bRaw) {
                            source = og.object.map { .copy(1, $0) } ?? .none
                        } else if same(og.object, oRaw, bg.object, bRaw) {
                            source = tg.object.map { .copy(2, $0) } ?? .none
                        } else {
                            source = .merged
                            for (version, group) in [bg, og, tg].enumerated() {
                                if let line = group.object { contested[version].append((line, group.objectLine)) }
                            }
                        }
                        let records =
                            bg.records.isEmpty && og.records.isEmpty && tg.records.isEmpty
                            ? []
                            : mergeRecordLines(
                                base: bg.records.map(b.line), ours: og.records.map(o.line),
                                theirs: tg.records.map(t.line))
                        plan.append((id, source, records))
                    }
                }
            }
        }

        // The contested objects: read from their lines alone, merged as the whole merge merges them.
        var states: [[UInt64: ObjectState]] = [[:], [:], [:]]
        // Writes the merged objects' lines as the whole merge writes them.
        let writer = PartRecords(entity: declaration)
        for (version, (lines, path)) in [(b, base?.path ?? ""), (o, ours.path), (t, theirs.path)].enumerated()
        where !contested[version].isEmpty {
            do {
                let records = try PartRecords.read(
                    bytes: lines.keeping(contested[version], entity: entity), path: path,
                    entity: entity, schema: schema, blobs: blobs)
                states[version] = records.states
            } catch {
                throw .package(error)
            }
        }
        let outcome: ObjectStateMerge.Outcome
        do { outcome = try ObjectStateMerge.merge(base: states[0], ours: states[1], theirs: states[2], schema: schema) } catch {
            throw .merge(error)
        }
        var newRecords: [UInt64: [MergeConflict]] = [:]
        for conflict in outcome.conflicts { newRecords[conflict.id.id, default: []].append(conflict) }

        // Room for a few more lines than ours, returned without a copy (``ByteBuffer/data()``).
        var output = ByteBuffer(capacity: ours.bytes.count + ours.bytes.count / 8 + 4096)
        let objectCount = plan.reduce(0) { count, entry in
            switch entry.object {
            case .none: return count
            case .copy: return count + 1
            case .merged: return count + (outcome.states[entry.id] == nil ? 0 : 1)
            }
        }
        PartRecords.appendHeader(root: ["entity": entity], entity: entity, count: objectCount, to: &output)
        for (id, source, records) in plan {
            switch source {
            case .none: break
            case .copy(let version, let range): (version == 1 ? o : t).append(range, to: &output)
            case .merged: if let state = outcome.states[id] { writer.appendObject(id, state, to: &output) }
            }
            for record in records {
                output.append(bytes: record)
                output.append(0x0A)
            }
            for conflict in newRecords[id] ?? [] { ConflictRecordXML.append(conflict, schema: schema, to: &output) }
        }
        output.append(bytes: PartLines.footer)
        return Merged(
            contents: output.data(), conflicts: outcome.conflicts,
            statesBuilt: states.reduce(0) { $0 + $1.count })
    }

    /// ``MergeConflict/mergeRecords(base:ours:theirs:)`` over record lines:
    /// Folio writes a record's line from the record alone, so equal lines are
    /// equal records and the sets are the same.
    private static func mergeRecordLines(base: [[UInt8]], ours: [[UInt8]], theirs: [[UInt8]]) -> [[UInt8]] {
        MergeConflict.mergedAsSets(base: base, ours: ours, theirs: theirs)
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
    static func schema(of url: URL) throws(Failure) -> Schema {
        try manifestSchema(url.appendingPathComponent(PackageManifest.fileName))
    }
}
