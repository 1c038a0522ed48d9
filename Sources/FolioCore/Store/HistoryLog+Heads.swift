import Foundation

/// Branches in a history (docs/FORMAT.md, "History", "Parents and heads"):
/// a Git merge of two branches of a package unites their history files (each
/// writer's are its own, so Git never conflicts on them), but nothing was
/// saved that merges them, and an app that keeps the last token it saw (a
/// time) would miss the other branch's transactions numbered below it. Each
/// transaction names the heads its writer knew (``StoredTransaction/parents``);
/// a history with more than one head was united by a merge, and reads with
/// one more transaction, by ``DocumentPackage/mergeAuthor``, holding every
/// change the branches made since they parted, numbered above them all. The
/// next save persists it.
extension HistoryLog {
    /// The transactions no other transaction follows, ascending.
    ///
    /// `transactions` ascend by number, duplicates dropped
    /// (``withoutDuplicates(_:)``). A transaction follows those its `parents`
    /// name, and everything numbered up to its floor: for a transaction
    /// without `parents` (written before Folio recorded them), every
    /// transaction below it; for one naming a parent the history no longer
    /// holds (deleted), everything up to that parent — what was deleted cannot
    /// be walked, and a history deleted in the middle must not read as branched.
    ///
    /// - Complexity: O(transactions and the parents they name).
    static func heads(of transactions: [StoredTransaction]) -> [Int64] {
        heads(of: transactions.map { Link(number: $0.number, parents: $0.parents) })
    }

    /// ``heads(of:)-([StoredTransaction])`` of transactions' numbers and parents.
    static func heads(of links: [Link]) -> [Int64] {
        var named = Set<Int64>()
        var floor: Int64 = 0
        let numbers = Set(links.map(\.number))
        for link in links {
            floor = max(floor, Self.floor(number: link.number, parents: link.parents, numbers: numbers))
            for parent in link.parents ?? [] where numbers.contains(parent) { named.insert(parent) }
        }
        return links.map(\.number).filter { $0 > floor && !named.contains($0) }
    }

    /// What a transaction follows by number alone: everything numbered up to this.
    private static func floor(number: Int64, parents: [Int64]?, numbers: Set<Int64>) -> Int64 {
        guard let parents else { return number - 1 }
        return parents.last { !numbers.contains($0) } ?? 0
    }

    /// The transactions, ascending, with each run of equal ones (the same
    /// number and content: a merge two branches both persisted) kept once.
    static func withoutDuplicates(_ transactions: [StoredTransaction]) -> [StoredTransaction] {
        var result: [StoredTransaction] = []
        result.reserveCapacity(transactions.count)
        for transaction in transactions {
            // Equal transactions sort next to each other, or between others of their number.
            if result.reversed().prefix { $0.number == transaction.number }.contains(transaction) { continue }
            result.append(transaction)
        }
        return result
    }

    /// The transaction that merges a history's branches, `nil` when it has
    /// one head (or none): numbered one above the highest head (every number
    /// is below it), its `parents` the heads, by ``DocumentPackage/mergeAuthor``,
    /// with the highest head's timestamp, bundle and process (so it is the same
    /// whenever and wherever it is made from the same history: two branches
    /// that persist it persist one transaction), and the changes of every
    /// transaction that is not an ancestor of every head
    /// (``StoredTransaction/union(of:schema:)``).
    ///
    /// - Parameters:
    ///   - transactions: the history, ascending, duplicates dropped.
    ///   - schema: orders entities and properties as a save does; `nil`: by first appearance.
    /// - Complexity: O(heads × (transactions and parents)), plus the union.
    static func merge(of transactions: [StoredTransaction], schema: Schema?) -> StoredTransaction? {
        let heads = heads(of: transactions)
        guard heads.count > 1, let highest = heads.last, highest < .max,
            let top = transactions.last(where: { $0.number == highest })
        else { return nil }
        let byNumber = Dictionary(transactions.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let numbers = Set(byNumber.keys)
        // What each head follows: everything up to its floor, and what its parents name, transitively.
        var followed: [(floor: Int64, named: Set<Int64>)] = []
        for head in heads {
            var floor: Int64 = 0
            var named = Set<Int64>()
            var pending = [head]
            while let number = pending.popLast() {
                guard let transaction = byNumber[number] else { continue }
                floor = max(floor, Self.floor(number: transaction.number, parents: transaction.parents, numbers: numbers))
                for parent in transaction.parents ?? [] where numbers.contains(parent) && named.insert(parent).inserted {
                    pending.append(parent)
                }
            }
            followed.append((floor, named))
        }
        let branches = transactions.filter { transaction in
            !followed.allSatisfy { transaction.number <= $0.floor || $0.named.contains(transaction.number) }
        }
        var merge = StoredTransaction.union(of: branches, schema: schema)
        merge.number = highest + 1
        merge.timestamp = top.timestamp
        merge.author = DocumentPackage.mergeAuthor
        merge.bundleIdentifier = top.bundleIdentifier
        merge.processIdentifier = top.processIdentifier
        merge.parents = heads
        return merge
    }
}

extension StoredTransaction {
    /// The changes of `transactions` (ascending) as one transaction: an object
    /// one inserted is inserted (updates after change nothing of that); one
    /// deleted is deleted (with the last tombstone recorded for it), whatever
    /// came before; otherwise the properties all its updates changed. Entities,
    /// and the properties of an update, in `schema`'s order (declaration order),
    /// or by first appearance without it or for names it lacks; an entity's
    /// updates grouped by their properties, in the order of those lists.
    /// Number, timestamp, author, bundle and process are left to the caller.
    ///
    /// - Complexity: O(identifier runs of the transactions × updated groups), never per identifier.
    static func union(of transactions: [StoredTransaction], schema: Schema?) -> StoredTransaction {
        var entities: [String] = []
        var inserted: [String: IdentifierRuns] = [:], deleted: [String: IdentifierRuns] = [:]
        // Per entity: disjoint groups of objects with the properties their updates changed.
        var updated: [String: [(properties: Set<String>, ids: IdentifierRuns)]] = [:]
        var propertyOrder: [String: [String]] = [:]
        var tombstones: [String: [UInt64: Tombstone]] = [:]
        func note(_ entity: String) { if inserted[entity] == nil { entities.append(entity); inserted[entity] = IdentifierRuns() } }
        for transaction in transactions {
            for objects in transaction.inserted {
                note(objects.entity)
                inserted[objects.entity] = inserted[objects.entity, default: IdentifierRuns()].union(objects.ids)
            }
            for update in transaction.updated {
                note(update.entity)
                for property in update.properties where !(propertyOrder[update.entity] ?? []).contains(property) {
                    propertyOrder[update.entity, default: []].append(property)
                }
                var remaining = update.ids
                var groups: [(properties: Set<String>, ids: IdentifierRuns)] = []
                for group in updated[update.entity] ?? [] {
                    let overlap = group.ids.intersection(remaining)
                    guard !overlap.isEmpty else {
                        groups.append(group)
                        continue
                    }
                    let rest = group.ids.subtracting(overlap)
                    if !rest.isEmpty { groups.append((group.properties, rest)) }
                    groups.append((group.properties.union(update.properties), overlap))
                    remaining = remaining.subtracting(overlap)
                }
                if !remaining.isEmpty { groups.append((Set(update.properties), remaining)) }
                updated[update.entity] = groups
            }
            for objects in transaction.deleted {
                note(objects.entity)
                deleted[objects.entity] = deleted[objects.entity, default: IdentifierRuns()].union(objects.ids)
            }
            for tombstone in transaction.tombstones { tombstones[tombstone.entity, default: [:]][tombstone.id] = tombstone }
        }
        var result = StoredTransaction(
            number: 0, timestamp: Date(timeIntervalSince1970: 0), author: nil,
            bundleIdentifier: "", processIdentifier: "")
        let declared = schema?.entities.map(\.name) ?? []
        let ordered = declared.filter { inserted[$0] != nil } + entities.filter { !declared.contains($0) }
        for entity in ordered {
            let gone = deleted[entity] ?? IdentifierRuns()
            let new = (inserted[entity] ?? IdentifierRuns()).subtracting(gone)
            if !new.isEmpty { result.inserted.append(Objects(entity: entity, ids: new)) }
            let declaredProperties = schema?.entity(named: entity).map { $0.attributes.map(\.name) + $0.relationships.map(\.name) } ?? []
            let seen = propertyOrder[entity] ?? []
            let order = declaredProperties.filter { seen.contains($0) } + seen.filter { !declaredProperties.contains($0) }
            // Groups with the same properties after the union are one.
            var lists: [[String]] = [], ids: [[String]: IdentifierRuns] = [:]
            for group in updated[entity] ?? [] {
                let remaining = group.ids.subtracting(new).subtracting(gone)
                guard !remaining.isEmpty else { continue }
                let list = order.filter { group.properties.contains($0) }
                if ids[list] == nil { lists.append(list) }
                ids[list] = ids[list, default: IdentifierRuns()].union(remaining)
            }
            let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            for list in lists.sorted(by: { $0.map { rank[$0] ?? 0 }.lexicographicallyPrecedes($1.map { rank[$0] ?? 0 }) }) {
                if let objects = ids[list] { result.updated.append(Update(entity: entity, properties: list, ids: objects)) }
            }
            guard !gone.isEmpty else { continue }
            result.deleted.append(Objects(entity: entity, ids: gone))
            let kept = tombstones[entity] ?? [:]
            result.tombstones += kept.keys.sorted().compactMap { kept[$0] }
        }
        return result
    }
}
