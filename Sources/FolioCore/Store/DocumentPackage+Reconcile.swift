import Foundation

/// Opening a format-3 package merged outside Folio (Git merging part files
/// line by line, or its merge driver merging one file at a time): what only
/// the whole document can settle — a link to an object the other side
/// deleted, both sides of a relationship disagreeing, unique values two
/// objects now share, counts — is reconciled at open by the merge engine's
/// own rules (``MergeReconcile``), and recorded as conflicts, never refused
/// and never dropped silently.
extension DocumentPackage {
    /// Whether a strict read's failure is one the whole-document reconcile settles.
    static func isReconcilable(_ error: PackageError) -> Bool {
        switch error {
        case .danglingReference, .inverseMismatch, .wrongDestination, .countViolation, .uniqueViolation: return true
        default: return false
        }
    }

    /// Reads a format-3 package's parts as object states (each file through
    /// ``PartRecords``), reconciles them as a merge does, and builds the graph:
    /// the relationships' fact sides decide, derived sides follow, and each
    /// rule applied is a conflict record in the graph, after the records the
    /// parts held.
    ///
    /// - Throws: ``PackageError`` for a part that does not read; a value the
    ///   reconcile had to read and could not is reported at the package.
    /// - Complexity: O(objects × properties + links): slower than a strict
    ///   read, and only run when that one found the package inconsistent.
    func readReconciled(schema: Schema, limits: DocumentLimits, journal: CommitJournal?) throws(PackageError) -> ObjectGraph {
        let folder = self.folder
        var states: [UInt64: ObjectState] = [:]
        var records: [MergeConflict] = []
        for entity in schema.entities {
            let partFolder = PackageLayout.partFolder(entity: entity.name)
            var names = Set(folder.entries(of: partFolder).filter { PackageLayout.part(ofFileName: $0) != nil })
            for target in journal?.targets ?? [] where target.hasPrefix(partFolder + "/") {
                names.insert(String(target.dropFirst(partFolder.utf8.count + 1)))
            }
            for name in names.sorted() {
                let path = partFolder + "/" + name
                let item = journal?.readItem(for: path, in: folder) ?? folder.item(name, in: partFolder)
                let part = try PartRecords.read(item: item, entity: entity.name, schema: schema, blobs: folder)
                for (id, state) in part.states {
                    guard states.updateValue(state, forKey: id) == nil else {
                        throw .invalidIdentifier(
                            PackageError.Location(file: item.path, line: 0, column: 0), entity: entity.name,
                            id: "\(id) (an identifier another part also holds)")
                    }
                }
                records += part.conflicts
            }
        }
        guard states.count <= limits.maximumObjects else {
            throw .limitExceeded(
                PackageError.Location(file: partsPath, line: 0, column: 0), limit: .objects,
                size: states.count, maximum: limits.maximumObjects)
        }
        let revivable = MergeReconcile.revivableStates(from: records, schema: schema)
        let settled: [MergeConflict]
        do {
            settled = try MergeReconcile.reconcile(&states, schema: schema, revivable: revivable)
        } catch {
            throw .unexpectedContent(
                PackageError.Location(file: partsPath, line: 0, column: 0), found: error.description,
                expected: "a package whose merged objects can be reconciled")
        }
        let graph = ObjectGraph(schema: schema)
        graph.limits = limits
        graph.build(from: states)
        graph.conflicts = records + settled
        return graph
    }
}
