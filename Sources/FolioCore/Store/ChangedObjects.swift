/// The identifiers of the objects saved since the package was last written,
/// for a write to rewrite the parts holding them: a set, "not known exactly"
/// (every part is compared with the disk), or lists still to be worked out.
///
/// An autosave hands its list over unworked, as a function of its change
/// tracking and its graph snapshot: the write in the background works it out,
/// so the editing thread does not hash the identifiers of everything a
/// cascade deleted. A save written on the spot works its list out there.
struct ChangedObjects {
    /// The identifiers worked out so far.
    private var known: Set<UInt64> = []
    /// Lists still to work out; one that answers `nil` makes the whole unknown.
    private var pending: [@Sendable () -> Set<UInt64>?] = []
    /// Whether some save could not say exactly what it changed.
    private(set) var isUnknown = false

    /// Lists waiting past this many are worked out at once, so a run of
    /// autosaves with no write between them holds few graph snapshots.
    private static let pendingLimit = 8

    /// Nothing changed.
    init() {}

    /// `identifiers`, or not known exactly when `nil`.
    init(_ identifiers: Set<UInt64>?) {
        if let identifiers { known = identifiers } else { isUnknown = true }
    }

    /// A list worked out when a write needs it, by `identifiers` (which must
    /// read only what it captured: it may run on another thread).
    init(workingOut identifiers: @escaping @Sendable () -> Set<UInt64>?) {
        pending = [identifiers]
    }

    /// Not known exactly: every part is compared with the disk.
    static var unknown: ChangedObjects { ChangedObjects(nil) }

    /// Adds `other`'s objects. The smaller set goes into the larger: after a
    /// write (nothing unwritten), a save's set is kept as it is, not hashed again.
    mutating func formUnion(_ other: ChangedObjects) {
        guard !isUnknown else { return }
        guard !other.isUnknown else {
            self = .unknown
            return
        }
        if known.count >= other.known.count {
            known.formUnion(other.known)
        } else {
            known = other.known.union(known)
        }
        pending += other.pending
        if pending.count > Self.pendingLimit { workOut() }
    }

    /// The identifiers, every pending list worked out; `nil` when not known
    /// exactly. O(the objects of the pending lists).
    func identifiers() -> Set<UInt64>? {
        var copy = self
        copy.workOut()
        return copy.isUnknown ? nil : copy.known
    }

    private mutating func workOut() {
        for list in pending {
            guard !isUnknown, let ids = list() else {
                isUnknown = true
                break
            }
            if known.count >= ids.count { known.formUnion(ids) } else { known = ids.union(known) }
        }
        pending.removeAll()
        if isUnknown { known.removeAll() }
    }
}
