import Folio
import Foundation

/// `changes [since TOKEN]`: the document's saved history, transaction by transaction.
extension Interpreter {
    /// One transaction's changes, grouped as the history stores them: inserts
    /// and deletes by entity, updates by entity and properties, identifiers as runs.
    struct ChangeSummary {
        var inserted: [(entity: String, ids: [UInt64])] = []
        var updated: [(entity: String, properties: [String], ids: [UInt64])] = []
        var deleted: [(entity: String, ids: [UInt64])] = []
        var tombstones: [(id: PersistentIdentifier, values: [(name: String, value: Value)])] = []

        init(_ transaction: DefaultHistoryTransaction) {
            for change in transaction.changes {
                let id = change.changedPersistentIdentifier
                switch change {
                case .insert:
                    if inserted.last?.entity == id.entityName { inserted[inserted.count - 1].ids.append(id.id) }
                    else { inserted.append((id.entityName, [id.id])) }
                case .update(let update):
                    let names = update.updatedAttributeNames
                    if updated.last.map({ $0.entity == id.entityName && $0.properties == names }) == true {
                        updated[updated.count - 1].ids.append(id.id)
                    } else {
                        updated.append((id.entityName, names, [id.id]))
                    }
                case .delete(let delete):
                    if deleted.last?.entity == id.entityName { deleted[deleted.count - 1].ids.append(id.id) }
                    else { deleted.append((id.entityName, [id.id])) }
                    if !delete.preservedValues.isEmpty { tombstones.append((id, delete.preservedValues)) }
                }
            }
        }
    }

    func changes(_ text: CommandLineText) throws(CommandError) {
        var token = DefaultHistoryToken(transactionNumber: 0)
        if text.words.count > 1 {
            let since = text.words[1]
            guard since.keyword == "since" else {
                throw CommandError("unexpected '\(since.text)'; did you mean 'changes since TOKEN'?", column: since.column)
            }
            let value = try word(text, 2, missing: "a token (a transaction number) after 'since'")
            guard let parsed = DefaultHistoryToken(value.text) else {
                throw CommandError("'\(value.text)' is not a token: a transaction number, as 'changes' shows", column: value.column)
            }
            token = parsed
            try expectEnd(text, after: 3)
        }
        let transactions: [DefaultHistoryTransaction]
        do {
            transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.token > token }))
        } catch {
            throw CommandError("cannot read the history: \(error)")
        }
        if options.json {
            emit(Self.result("changes", [("transactions", .array(transactions.map(Self.json)))]))
            return
        }
        guard !transactions.isEmpty else {
            emit(token.transactionNumber == 0 ? "no changes saved yet" : "no changes saved since \(token)")
            return
        }
        for transaction in transactions {
            var heading = "transaction \(transaction.token)  \(Self.timestamp(transaction.timestamp))"
            if let author = transaction.author { heading += "  by \(author)" }
            emit(heading + "  (\(transaction.bundleIdentifier), process \(transaction.processIdentifier))")
            let summary = ChangeSummary(transaction)
            for objects in summary.inserted { emit("  insert \(objects.entity) \(Self.runs(objects.ids))") }
            for objects in summary.updated {
                emit("  update \(objects.entity) \(Self.runs(objects.ids)): \(objects.properties.joined(separator: ", "))")
            }
            for objects in summary.deleted { emit("  delete \(objects.entity) \(Self.runs(objects.ids))") }
            for tombstone in summary.tombstones {
                let values = tombstone.values.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                emit("    \(tombstone.id) was \(values)")
            }
        }
    }

    /// A transaction's time as history records it: ISO 8601, UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Identifiers as runs: `#1-4, #7, #9-10`.
    static func runs(_ ids: [UInt64]) -> String {
        var parts: [String] = []
        var index = 0
        while index < ids.count {
            var last = index
            while last + 1 < ids.count, ids[last + 1] == ids[last] + 1 { last += 1 }
            parts.append(last == index ? "#\(ids[index])" : "#\(ids[index])-\(ids[last])")
            index = last + 1
        }
        return parts.joined(separator: ", ")
    }

    static func json(_ transaction: DefaultHistoryTransaction) -> JSONText {
        let summary = ChangeSummary(transaction)
        func objects(_ list: [(entity: String, ids: [UInt64])]) -> JSONText {
            .array(list.map { .object([("entity", .string($0.entity)), ("ids", .array($0.ids.map(JSONText.int)))]) })
        }
        return .object([
            ("token", .string(transaction.token.description)),
            ("timestamp", .string(Self.timestamp(transaction.timestamp))),
            ("author", transaction.author.map(JSONText.string) ?? .null),
            ("bundle", .string(transaction.bundleIdentifier)),
            ("process", .string(transaction.processIdentifier)),
            ("inserted", objects(summary.inserted)),
            ("updated", .array(summary.updated.map {
                .object([("entity", .string($0.entity)), ("properties", .array($0.properties.map(JSONText.string))),
                         ("ids", .array($0.ids.map(JSONText.int)))])
            })),
            ("deleted", objects(summary.deleted)),
            ("tombstones", .array(summary.tombstones.map { tombstone in
                .object([("entity", .string(tombstone.id.entityName)), ("id", .int(tombstone.id.id)),
                         ("values", .object(tombstone.values.map { ($0.name, JSONText($0.value)) }))])
            })),
        ])
    }
}
