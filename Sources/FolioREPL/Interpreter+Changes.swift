import FolioCore
import Foundation

/// `changes [since TOKEN]`: the document's saved history, transaction by transaction.
extension Interpreter {
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
            transactions = try context.fetchHistory(
                HistoryDescriptor<DefaultHistoryTransaction>(
                    predicate: #Predicate { $0.token > token }))
        } catch {
            throw CommandError("cannot read the history: \(error)")
        }
        if options.json {
            var items: [JSONText] = []
            for transaction in transactions {
                try checkCancelled()
                items.append(Self.json(transaction))
            }
            emit(Self.result("changes", [("transactions", .array(items))]))
            return
        }
        guard !transactions.isEmpty else {
            emit(token.transactionNumber == 0 ? "no changes saved yet" : "no changes saved since \(token)")
            return
        }
        for transaction in transactions {
            try checkCancelled()
            var heading = "transaction \(transaction.token)  \(Self.timestamp(transaction.timestamp))"
            if let author = transaction.author { heading += "  by \(author)" }
            emit(heading + "  (\(transaction.bundleIdentifier), process \(transaction.processIdentifier))")
            // The groups as stored, identifiers as ranges: a transaction naming
            // a hundred million objects is a line, and no change per object is made.
            for group in transaction.changeGroups {
                try checkCancelled()
                let properties = group.kind == .update ? ": " + group.updatedAttributeNames.joined(separator: ", ") : ""
                emit("  \(group.kind.rawValue) \(group.entityName) \(Self.runs(group.identifierRanges))\(properties)")
            }
            for tombstone in transaction.tombstones {
                try checkCancelled()
                let values = tombstone.values.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                emit("    \(tombstone.id) was \(values)")
            }
        }
    }

    /// A transaction's time as history records it: ISO 8601, UTC, to the millisecond.
    ///
    /// The recorded millisecond is rounded, not truncated: a time read back as
    /// `.120` is often the double just below it, which Foundation's fractional
    /// style (it truncates) printed as `.119`.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSinceReferenceDate * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else {
            return Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
        }
        let whole = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - whole * 1000)
        let seconds = Date.ISO8601FormatStyle().format(Date(timeIntervalSinceReferenceDate: whole))
        guard seconds.hasSuffix("Z") else { return seconds }
        let digits = String(fraction)
        return seconds.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Identifiers as runs: `#1-4, #7, #9-10`.
    static func runs(_ ranges: [ClosedRange<UInt64>]) -> String {
        ranges.map { $0.lowerBound == $0.upperBound ? "#\($0.lowerBound)" : "#\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }

    /// A transaction as `changes --json` writes it: each group's identifiers as
    /// `[first, last]` ranges with their `count`, never one number per object.
    static func json(_ transaction: DefaultHistoryTransaction) -> JSONText {
        func groups(_ kind: HistoryChangeGroup.Kind) -> JSONText {
            .array(
                transaction.changeGroups.filter { $0.kind == kind }.map { group in
                    var fields: [(String, JSONText)] = [("entity", .string(group.entityName))]
                    if kind == .update { fields.append(("properties", .array(group.updatedAttributeNames.map(JSONText.string)))) }
                    fields.append(("count", .int(group.count)))
                    fields.append(("ranges", .array(group.identifierRanges.map { .array([.int($0.lowerBound), .int($0.upperBound)]) })))
                    return .object(fields)
                })
        }
        return .object([
            ("token", .string(transaction.token.description)),
            ("timestamp", .string(Self.timestamp(transaction.timestamp))),
            ("author", transaction.author.map(JSONText.string) ?? .null),
            ("bundle", .string(transaction.bundleIdentifier)),
            ("process", .string(transaction.processIdentifier)),
            ("inserted", groups(.insert)),
            ("updated", groups(.update)),
            ("deleted", groups(.delete)),
            (
                "tombstones",
                .array(
                    transaction.tombstones.map { tombstone in
                        .object([
                            ("entity", .string(tombstone.id.entityName)), ("id", .int(tombstone.id.id)),
                            ("values", .object(tombstone.values.map { ($0.name, JSONText($0.value)) })),
                        ])
                    })
            ),
        ])
    }
}
