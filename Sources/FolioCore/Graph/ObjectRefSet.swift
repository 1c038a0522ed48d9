/// A set of a graph's objects kept as one bit per row of each entity's table.
///
/// What a delete and the change tracking keep their objects in: membership,
/// insertion and removal touch one word, with no hashing, so a cascade of a
/// hundred thousand objects costs the same per object as one of a thousand
/// (hashed sets of that size outgrow the processor's cache). Iteration runs in
/// (entity, row) order and costs the words of the entities that hold members;
/// memory is a bit per row up to the highest member's, per entity.
struct ObjectRefSet: Sequence, Equatable {
    /// Per entity, its rows' bits, 64 to a word; absent past the highest member.
    private var words: [[UInt64]] = []
    /// Per entity, how many members it has.
    private var counts: [Int] = []
    /// How many members the set has.
    private(set) var count = 0

    init() {}

    init(_ refs: some Sequence<ObjectRef>) {
        for ref in refs { insert(ref) }
    }

    var isEmpty: Bool { count == 0 }

    func contains(_ ref: ObjectRef) -> Bool {
        let entity = Int(ref.entity), row = Int(ref.row)
        guard entity < words.count, row >> 6 < words[entity].count else { return false }
        return words[entity][row >> 6] & (1 << UInt64(row & 63)) != 0
    }

    /// Adds `ref`; returns whether it was absent.
    @discardableResult
    mutating func insert(_ ref: ObjectRef) -> Bool {
        let entity = Int(ref.entity), row = Int(ref.row)
        if entity >= words.count {
            words.append(contentsOf: repeatElement([], count: entity + 1 - words.count))
            counts.append(contentsOf: repeatElement(0, count: entity + 1 - counts.count))
        }
        let word = row >> 6, bit = UInt64(1) << UInt64(row & 63)
        if word >= words[entity].count {
            // Doubling, so rows inserted in order cost amortized O(1).
            let wanted = Swift.max(word + 1, words[entity].count * 2)
            words[entity].append(contentsOf: repeatElement(0, count: wanted - words[entity].count))
        }
        guard words[entity][word] & bit == 0 else { return false }
        words[entity][word] |= bit
        counts[entity] += 1
        count += 1
        return true
    }

    /// Removes `ref`; returns whether it was a member.
    @discardableResult
    mutating func remove(_ ref: ObjectRef) -> Bool {
        let entity = Int(ref.entity), row = Int(ref.row)
        guard entity < words.count, row >> 6 < words[entity].count else { return false }
        let word = row >> 6, bit = UInt64(1) << UInt64(row & 63)
        guard words[entity][word] & bit != 0 else { return false }
        words[entity][word] &= ~bit
        counts[entity] -= 1
        count -= 1
        return true
    }

    mutating func removeAll() {
        words = []
        counts = []
        count = 0
    }

    /// How many members belong to `entity`. O(1).
    func count(of entity: Int) -> Int {
        entity < counts.count ? counts[entity] : 0
    }

    /// Calls `body` with each member's row in `entity`, ascending. O(rows / 64 + members).
    func forEachRow(of entity: Int, _ body: (Int) throws -> Void) rethrows {
        guard entity < counts.count, counts[entity] > 0 else { return }
        for (index, word) in words[entity].enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                try body(index << 6 | bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }

    static func == (lhs: ObjectRefSet, rhs: ObjectRefSet) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for entity in 0..<Swift.max(lhs.words.count, rhs.words.count) {
            let left = entity < lhs.words.count ? lhs.words[entity] : [], right = entity < rhs.words.count ? rhs.words[entity] : []
            for index in 0..<Swift.max(left.count, right.count)
            where (index < left.count ? left[index] : 0) != (index < right.count ? right[index] : 0) { return false }
        }
        return true
    }

    func makeIterator() -> Iterator { Iterator(set: self) }

    /// The members in (entity, row) order.
    struct Iterator: IteratorProtocol {
        fileprivate let set: ObjectRefSet
        private var entity = 0, word = 0
        private var bits: UInt64 = 0

        fileprivate init(set: ObjectRefSet) { self.set = set }

        mutating func next() -> ObjectRef? {
            while true {
                if bits != 0 {
                    let row = (word - 1) << 6 | bits.trailingZeroBitCount
                    bits &= bits - 1
                    return ObjectRef(entity: entity, row: row)
                }
                guard entity < set.words.count else { return nil }
                if set.counts[entity] > 0, word < set.words[entity].count {
                    bits = set.words[entity][word]
                    word += 1
                } else {
                    entity += 1
                    word = 0
                }
            }
        }
    }
}
