import CLibXML2
import Foundation

/// Reading history (docs/FORMAT.md, "History"): a manifest's `<history>`
/// list of segments, and a segment file's `<transaction>` elements.
extension DocumentLoader {
    /// Starts an element in one of the history phases.
    func startHistoryElement(_ name: UnsafePointer<xmlChar>, _ xml: [String: String]) {
        let elementName = String(cString: name)
        switch phase {
        case .afterParts where elementName == "conflicts" && !sawConflicts:
            sawConflicts = true
            phase = .conflictList
        case .conflictList:
            guard isElement(name, ConflictRecordXML.elementName) else { return }
            readConflictRecord(xml)
            phase = .conflictRecord
        case .conflictRecord:
            fail(.unexpectedContent(location(), found: "<\(elementName)>", expected: "an empty element"))
        case .afterParts:
            guard isElement(name, "history") else { return }
            // Int64.max is refused: no transaction could be numbered after it.
            guard let text = xml["next"], let next = Int64(text), next > 0, next < .max else {
                return fail(
                    .invalidValue(
                        location(), entity: "history", attribute: "next", text: xml["next"] ?? "",
                        expected: "the number of the next transaction (1 to 2^63 − 2)"))
            }
            historyLog = HistoryLog(nextNumber: next)
            if sawNextID { historyIdentifierCeiling = declaredNextID }
            historyLog?.identifierCeiling = historyIdentifierCeiling
            phase = .historyList
        case .historyList:
            // The closed segments, then the open tail's transactions (the manifest holds them).
            if elementName == "transaction" {
                readTransaction(xml)
                phase = .transaction
                return
            }
            guard isElement(name, "segment") else { return }
            guard historyTransactions.isEmpty else {
                return fail(
                    .unexpectedContent(
                        location(), found: "<segment> after a <transaction>",
                        expected: "the closed segments first, then the open transactions"))
            }
            readSegment(xml)
            phase = .historySegment
        case .transactions:
            guard isElement(name, "transaction") else { return }
            readTransaction(xml)
            phase = .transaction
        case .transaction:
            switch elementName {
            case "insert", "update", "delete": readChange(elementName, xml)
            case "tombstone": readTombstone(xml)
            default:
                return fail(
                    .unexpectedContent(
                        location(), found: "<\(elementName)>",
                        expected: "<insert>, <update>, <delete> or <tombstone>"))
            }
            phase = elementName == "tombstone" ? .tombstone : .historyChange
        case .tombstone:
            guard isElement(name, "value") else { return }
            readPreservedValue(xml)
            phase = .tombstoneValue
        case .historySegment, .historyChange, .tombstoneValue:
            fail(.unexpectedContent(location(), found: "<\(elementName)>", expected: "an empty element"))
        default:
            fail(.unexpectedContent(location(), found: "<\(elementName)>", expected: "the end of the document"))
        }
    }

    /// Ends an element in one of the history phases.
    func endHistoryElement() {
        switch phase {
        case .historySegment: phase = .historyList
        case .historyList:
            let listed = historyTransactions.last?.number ?? historyLog?.segments.last?.last
            if let listed, let next = historyLog?.nextNumber, listed >= next {
                return fail(
                    .invalidValue(
                        location(), entity: "history", attribute: "next", text: String(next),
                        expected: "a number above every listed transaction's (\(listed))"))
            }
            if let first = historyTransactions.first?.number, let segment = historyLog?.segments.last, segment.last >= first {
                return fail(
                    .unexpectedContent(
                        location(), found: "transaction \(first) after segment \(segment.file)",
                        expected: "transactions numbered above the last segment's (\(segment.last))"))
            }
            historyLog?.setTail(historyTransactions)
            phase = .afterHistory
        case .conflictRecord: phase = .conflictList
        case .conflictList: phase = .afterParts
        case .afterParts, .afterHistory: phase = .end
        case .transactions: phase = .end
        case .transaction: phase = mode == .history ? .transactions : .historyList
        case .historyChange, .tombstone: phase = .transaction
        case .tombstoneValue: phase = .tombstone
        default: break
        }
    }

    /// One `<f.conflict entity="…" …/>` of a manifest's `<conflicts>` (ConflictRecordXML).
    private func readConflictRecord(_ xml: [String: String]) {
        guard let schema, let entity = xml["entity"], schema.entity(named: entity) != nil else {
            return fail(.unknownEntity(location(), name: xml["entity"] ?? ""))
        }
        guard let record = ConflictRecordXML.read(xml, entity: entity, schema: schema) else {
            return fail(
                .unexpectedContent(
                    location(), found: "a conflict record that does not read",
                    expected: "<f.conflict> as docs/FORMAT.md describes"))
        }
        conflictRecords.append(record)
    }

    /// One `<f.conflict …/>` line of a format-3 part, about an object of the part's entity.
    func readPartConflict(_ xml: [String: String], entity: String) {
        guard let schema, let record = ConflictRecordXML.read(xml, entity: entity, schema: schema) else {
            return fail(
                .unexpectedContent(
                    location(), found: "a conflict record that does not read",
                    expected: "<f.conflict> as docs/FORMAT.md describes"))
        }
        conflictRecords.append(record)
    }

    /// One `<segment first last count file/>`: segments ascend and do not overlap.
    private func readSegment(_ xml: [String: String]) {
        guard let first = xml["first"].flatMap(Int64.init), first > 0,
            let last = xml["last"].flatMap(Int64.init), last >= first,
            let count = xml["count"].flatMap(Int.init), count > 0, Int64(count) - 1 <= last - first
        else {
            return fail(
                .invalidValue(
                    location(), entity: "history", attribute: "segment",
                    text: ["first", "last", "count"].map { "\($0)=\(xml[$0] ?? "")" }.joined(separator: " "),
                    expected: "0 < first ≤ last and 0 < count ≤ last − first + 1"))
        }
        guard let file = xml["file"], HistoryLog.isSegmentFileName(file), file.hasPrefix("\(first)-") else {
            return fail(
                .invalidValue(
                    location(), entity: "history", attribute: "file", text: xml["file"] ?? "",
                    expected: "a history segment file name (\(first)-HASH.xml)"))
        }
        if let previous = historyLog?.segments.last, previous.last >= first {
            return fail(
                .unexpectedContent(
                    location(), found: "segment \(file) overlapping or before \(previous.file)",
                    expected: "segments by ascending, disjoint transaction numbers"))
        }
        historyLog?.segments.append(HistoryLog.Segment(first: first, last: last, count: count, file: file))
    }

    /// One `<transaction id timestamp author bundle process parents>`.
    private func readTransaction(_ xml: [String: String]) {
        guard let number = xml["id"].flatMap(Int64.init), number > 0,
            historyTransactions.last.map({ $0.number < number }) ?? true
        else {
            return fail(
                .invalidValue(
                    location(), entity: "transaction", attribute: "id", text: xml["id"] ?? "",
                    expected: "a transaction number above the one before"))
        }
        guard let timestamp = xml["timestamp"].flatMap(DateText.parse) else {
            return fail(
                .invalidValue(
                    location(), entity: "transaction", attribute: "timestamp", text: xml["timestamp"] ?? "",
                    expected: "date"))
        }
        guard let bundle = text("bundle", xml), let process = text("process", xml) else {
            return fail(.unexpectedContent(location(), found: "<transaction> without bundle or process", expected: "both"))
        }
        var parents: [Int64]?
        if let written = xml["parents"] {
            var list: [Int64] = []
            for word in written.split(separator: " ", omittingEmptySubsequences: false) where !written.isEmpty {
                guard let parent = Int64(word), parent > 0, parent < number, list.last.map({ $0 < parent }) ?? true else {
                    return fail(
                        .invalidValue(
                            location(), entity: "transaction", attribute: "parents", text: written,
                            expected: "ascending transaction numbers below its id (\(number)), one space apart"))
                }
                list.append(parent)
            }
            parents = list
        }
        var transaction = StoredTransaction(
            number: number, timestamp: timestamp, author: text("author", xml),
            bundleIdentifier: bundle, processIdentifier: process)
        transaction.parents = parents
        historyTransactions.append(transaction)
    }

    /// Text written by ``DocumentWriter/appendText(_:name:to:)``: `name`, or `name.esc` with JSON escapes.
    private func text(_ name: String, _ xml: [String: String]) -> String? {
        if let plain = xml[name] { return plain }
        return xml[name + DocumentWriter.escapedSuffix].flatMap(JSONParser.unescapeBody)
    }

    /// One `<insert|update|delete entity ids>` (an update with `properties`);
    /// consecutive elements of one entity (and properties) continue one list.
    ///
    /// What the runs may name is bounded by what the document can hold, so a
    /// few bytes of runs (`1-100000000`) cannot stand for more than a real
    /// save recorded: identifiers below the document's counter
    /// (``historyIdentifierCeiling``), and at most ``DocumentLimits/maximumObjects``
    /// objects inserted, updated or deleted by one transaction, all entities
    /// together (a save cannot insert or delete more objects than a document
    /// holds). The runs stay runs: nothing here or in the history API expands them.
    private func readChange(_ kind: String, _ xml: [String: String]) {
        let index = historyTransactions.count - 1
        let recorded: Int
        switch kind {
        case "insert": recorded = historyTransactions[index].inserted.reduce(0) { $0 + $1.ids.count }
        case "delete": recorded = historyTransactions[index].deleted.reduce(0) { $0 + $1.ids.count }
        default: recorded = historyTransactions[index].updated.reduce(0) { $0 + $1.ids.count }
        }
        let room = limits.maximumObjects - recorded
        guard let written = xml["entity"], !written.isEmpty,
            let ids = xml["ids"].flatMap({ IdentifierRuns(text: $0, limit: room, below: historyIdentifierCeiling) }),
            !ids.isEmpty
        else {
            let ceiling = historyIdentifierCeiling == .max ? "" : ", below the document's next-id (\(historyIdentifierCeiling))"
            return fail(
                .invalidValue(
                    location(), entity: xml["entity"] ?? "", attribute: "ids", text: xml["ids"] ?? "",
                    expected: "list of ascending identifier runs (1-4 7)\(ceiling), "
                        + "at most \(limits.maximumObjects) \(kind)s in one transaction"))
        }
        guard let entity = declaredEntity(written) else { return }
        /// Appends to the list before when it continues it; fails when its identifiers do not ascend.
        func joined(_ previous: inout IdentifierRuns) -> Bool {
            guard previous.append(contentsOf: ids) else {
                fail(
                    .invalidValue(
                        location(), entity: entity, attribute: "ids", text: xml["ids"] ?? "",
                        expected: "identifiers above those before (\(previous.last ?? 0))"))
                return false
            }
            return true
        }
        switch kind {
        case "insert", "delete":
            var list = kind == "insert" ? historyTransactions[index].inserted : historyTransactions[index].deleted
            if list.last?.entity == entity {
                guard joined(&list[list.count - 1].ids) else { return }
            } else {
                list.append(.init(entity: entity, ids: ids))
            }
            if kind == "insert" { historyTransactions[index].inserted = list } else { historyTransactions[index].deleted = list }
        default:
            var properties: [String] = []
            for written in (xml["properties"] ?? "").split(separator: " ") {
                guard let property = declaredProperty(String(written), of: entity) else { return }
                properties.append(property)
            }
            var updates = historyTransactions[index].updated
            if let last = updates.last, last.entity == entity, last.properties == properties {
                guard joined(&updates[updates.count - 1].ids) else { return }
            } else {
                updates.append(.init(entity: entity, properties: properties, ids: ids))
            }
            historyTransactions[index].updated = updates
        }
    }

    /// `<tombstone entity id>`, whose `<value>` elements follow.
    private func readTombstone(_ xml: [String: String]) {
        guard let written = xml["entity"], !written.isEmpty, let id = xml["id"].flatMap(UInt64.init), id > 0 else {
            return fail(
                .invalidValue(
                    location(), entity: xml["entity"] ?? "", attribute: "id", text: xml["id"] ?? "",
                    expected: "an entity and an identifier"))
        }
        guard let entity = declaredEntity(written) else { return }
        historyTransactions[historyTransactions.count - 1].tombstones.append(.init(entity: entity, id: id, values: []))
    }

    /// `<value name type text>` of a tombstone.
    private func readPreservedValue(_ xml: [String: String]) {
        let transaction = historyTransactions.count - 1
        let tombstone = historyTransactions[transaction].tombstones.count - 1
        let entity = historyTransactions[transaction].tombstones[tombstone].entity
        guard var name = xml["name"], let type = xml["type"].flatMap(ValueType.init) else {
            return fail(
                .invalidValue(
                    location(), entity: entity, attribute: xml["name"] ?? "value", text: xml["type"] ?? "",
                    expected: "a name and a type"))
        }
        // A value kept under another type than the schema's (a schema edited under its history) is not
        // the attribute's value: typed history would read it as something the model never held.
        if let declared = (schema ?? historySchema)?.entity(named: entity) {
            guard
                let attribute = declared.attributes.first(where: { $0.name == name })
                    ?? declared.attributes.first(where: { $0.originalName == name })
            else {
                return fail(.unknownProperty(location(), entity: entity, name: name))
            }
            name = attribute.name
            guard attribute.type == type else {
                return fail(
                    .invalidValue(
                        location(), entity: entity, attribute: name, text: type.description,
                        expected: "type \(attribute.type.description), as the schema declares \(entity).\(name)"))
            }
        }
        guard let text = text("text", xml), let value = ValueText.decode(text, as: type, maximumNesting: limits.maximumNesting) else {
            return fail(.invalidValue(location(), entity: entity, attribute: name, text: xml["text"] ?? "", expected: type.description))
        }
        historyTransactions[transaction].tombstones[tombstone].values.append((name, type, value))
    }

    /// The name the schema the history is checked against (``historySchema``,
    /// or the manifest's) gives the entity written `name`: `name` itself, or the
    /// entity renamed from it (its `original-name`: a history a migration left
    /// under the old name, before migrations renamed histories); `name` when
    /// nothing is checked. Fails at this element and returns `nil` when the
    /// schema declares neither: a history names only what its schema declares,
    /// and a migration renames it (``HistoryLog/rename(in:limits:storedSchema:entity:property:)``).
    private func declaredEntity(_ name: String) -> String? {
        guard let known = schema ?? historySchema, known.entity(named: name) == nil else { return name }
        if let renamed = known.entities.first(where: { $0.originalName == name }) { return renamed.name }
        fail(.unknownEntity(location(), name: name))
        return nil
    }

    /// The name the checked schema's `entity` gives the property written `name`
    /// (an attribute or a relationship, by name or `original-name`); fails and
    /// returns `nil` when it declares neither.
    private func declaredProperty(_ name: String, of entity: String) -> String? {
        guard let declared = (schema ?? historySchema)?.entity(named: entity) else { return name }
        let names = declared.attributes.map { ($0.name, $0.originalName) } + declared.relationships.map { ($0.name, $0.originalName) }
        if names.contains(where: { $0.0 == name }) { return name }
        if let renamed = names.first(where: { $0.1 == name }) { return renamed.0 }
        fail(.unknownProperty(location(), entity: entity, name: name))
        return nil
    }
}
