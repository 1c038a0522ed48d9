import FolioCore

/// `delete ID…`, `delete ENTITY where PREDICATE`, `delete all ENTITY`, `delete everything`:
/// each shows the cascade preview, asks, and is one undo step.
extension Interpreter {
    /// How many unlinked survivors the preview lists before summing up the rest.
    static let previewLines = 10

    func delete(_ text: CommandLineText) throws(CommandError) {
        let words = text.words
        let first = try word(text, 1, missing: "delete needs ids, ENTITY where PREDICATE, all ENTITY or everything")
        if first.keyword == "everything", schema.entity(named: first.text) == nil {
            try expectEnd(text, after: 2)
            try deleteEverything()
        } else if first.keyword == "all", schema.entity(named: first.text) == nil {
            let entity = try self.entity(try word(text, 2, missing: "delete all needs an entity, e.g. delete all Animal"))
            try expectEnd(text, after: 3)
            try deleteMatching(entity, filter: nil)
        } else if let entity = schema.entity(named: first.text) {
            guard words.count > 2 else {
                throw CommandError(
                    "to delete every \(entity.name) write 'delete all \(entity.name)'; "
                        + "or 'delete \(entity.name) where …'", column: text.endColumn)
            }
            guard words[2].keyword == "where" else {
                throw CommandError("unexpected '\(words[2].text)'; expected where", column: words[2].column)
            }
            try deleteMatching(entity, filter: try whereClause(text, Array(words[3...]), missingColumn: text.endColumn))
        } else {
            var ids: [PersistentIdentifier] = []
            for word in words.dropFirst() {
                if Self.parseID(CommandLineText.unquoted(word.text)) == nil, !word.text.hasPrefix("$") {
                    throw CommandError("'\(word.text)' is not an object id or an entity", column: word.column)
                }
                ids.append(try object(word))
            }
            let preview = try read { () throws(ModelError) in try context.deletionPreview(for: ids) }
            try perform(preview) { () throws(ModelError) in try context.delete(ids) }
        }
    }

    private func deleteMatching(_ entity: Schema.Entity, filter: Filter?) throws(CommandError) {
        let preview = try fetch(filter: filter) { () throws(ModelError) in
            try context.deletionPreview(entity: entity.name, where: filter?.predicate)
        }
        guard !preview.requested.isEmpty else {
            emit(
                filter == nil ? "nothing to delete: there is no \(entity.name)" : "nothing to delete: no \(entity.name) matches",
                or: Self.json(deleted: preview))
            return
        }
        try perform(preview) { () throws(ModelError) in
            _ = try context.delete(entity: entity.name, where: filter?.predicate)
        }
    }

    private func deleteEverything() throws(CommandError) {
        var ids: [PersistentIdentifier] = []
        for entity in schema.entities {
            try checkCancelled()
            ids += try read { () throws(ModelError) in try context.fetchIdentifiers(DynamicFetchDescriptor(entity: entity.name, includesSubentities: false)) }
        }
        guard !ids.isEmpty else {
            emit("nothing to delete: the document is empty", or: Self.json(deleted: nil))
            return
        }
        let preview = try read { () throws(ModelError) in try context.deletionPreview(for: ids) }
        try perform(preview, named: "Delete everything (\(Self.number(preview.deleted.count)) objects)") { () throws(ModelError) in
            context.deleteEverything()
        }
    }

    /// Writes the preview, asks, then deletes as one undo step.
    private func perform(
        _ preview: DeletionPreview, named name: String? = nil,
        _ delete: () throws(ModelError) -> Void
    ) throws(CommandError) {
        writePreview(preview)
        guard confirmed("Delete? [y/N] ", command: "delete") else { return }
        // The last moment to stop: once the removal begins it runs whole (the library plans
        // the cascade again first, where it can still stop, changing nothing).
        try checkCancelled()
        try change(named: name ?? Self.deletionStepName(preview)) { () throws(CommandError) in try read(delete) }
        emit("deleted \(preview.deleted.count) object\(preview.deleted.count == 1 ? "" : "s")", or: Self.json(deleted: preview))
    }

    /// `delete`'s JSON result: how many objects went, those asked for and those
    /// cascaded by entity, the links cut on survivors, and the deny rules now broken.
    /// `nil`: nothing was deleted.
    static func json(deleted preview: DeletionPreview?) -> JSONText {
        func byEntity(_ ids: [PersistentIdentifier]) -> JSONText {
            var groups: [(entity: String, ids: [UInt64])] = []
            for id in ids {
                if let index = groups.firstIndex(where: { $0.entity == id.entityName }) {
                    groups[index].ids.append(id.id)
                } else {
                    groups.append((id.entityName, [id.id]))
                }
            }
            return .array(groups.map { .object([("entity", .string($0.entity)), ("ids", .array($0.ids.map(JSONText.int)))]) })
        }
        return result(
            "delete",
            [
                ("deleted", .int(preview?.deleted.count ?? 0)),
                ("requested", byEntity(preview?.requested ?? [])),
                ("cascaded", byEntity(preview?.cascaded ?? [])),
                (
                    "unlinked",
                    .array(
                        (preview?.nullified ?? []).map {
                            .object([
                                ("entity", .string($0.object.entityName)), ("id", .int($0.object.id)),
                                ("relationship", .string($0.relationship)), ("count", .int($0.count)),
                            ])
                        })
                ),
                ("denials", .array((preview?.denials ?? []).map { .string($0.description) })),
            ])
    }

    /// The summary ("deletes 1 AnimalCategory, also deletes 7 Animal"), the links cut
    /// on survivors, and the deny rules that would make `save` refuse.
    func writePreview(_ preview: DeletionPreview) {
        self.preview(preview.summary)
        for nullification in preview.nullified.prefix(Self.previewLines) {
            self.preview("  unlinks \(nullification.count) from \(nullification.object).\(nullification.relationship)")
        }
        if preview.nullified.count > Self.previewLines {
            self.preview("  … and \(preview.nullified.count - Self.previewLines) more surviving objects lose links")
        }
        for denial in preview.denials {
            self.preview("  DENY: \(denial)")
        }
        if !preview.denials.isEmpty {
            self.preview(
                preview.denials.count == 1
                    ? "  save will refuse while this deny rule is broken"
                    : "  save will refuse while these deny rules are broken")
        }
    }
}
