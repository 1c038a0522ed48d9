#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The model instances a context has handed out, by object number: models are
/// views, so one dropped by the program is simply made again when next needed.
///
/// A `@Model` class unregisters its instances in its `deinit` (the expansion
/// writes one; ``PersistentModel/_$unregistersOnDeinit``), so the registry
/// holds them unretained and unweighted: no weak reference, whose side table
/// would be one more allocation per model, and no sweep. Their entries are
/// plain data (a pointer and a witness table), so registering one is a store,
/// with no reference-counting call on the way. A class that cannot say so (it
/// declares its own `deinit`, or conforms by hand) is held weakly, apart, in
/// a dictionary swept of dead entries as it grows.
///
/// Object numbers are dense in practice, so they index small pages of entries
/// through a directory (a to-one read finds its destination's model with two
/// memory accesses, no hashing). A page exists only while one of its entries
/// is set, so the registry's memory follows the models alive, not the largest
/// number registered: a batched fetch iterating a million objects keeps the
/// pages of its two batches, where one slot per number would hold a slot for
/// every number up to the largest (see docs/PERFORMANCE.md, "Batched fetch").
/// The directory itself costs under a
/// byte per number. Pages come from a ``PagePool``, away from the models.
/// Numbers far beyond the count go to a dictionary.
///
/// Not copyable: it owns its pages.
struct ModelRegistry: ~Copyable {
    /// A model held unretained: valid while set, as the model's `deinit`
    /// clears it before the memory goes. Plain data, copied without a
    /// reference-counting call.
    struct Entry {
        unowned(unsafe) var model: (any PersistentModel)?

        init() {}

        init(_ model: any PersistentModel) { self.model = model }

        /// Whether the entry holds this instance.
        func holds(_ object: ObjectIdentifier) -> Bool {
            guard let model else { return false }
            return ObjectIdentifier(model) == object
        }
    }

    /// An unretained entry of the dictionary of far numbers: never empty.
    ///
    /// Not an ``Entry``: Swift 6.3 (unoptimized builds) lays out `Entry?`
    /// with an empty entry's bits as `nil`, so a dictionary of entries
    /// holding one never ends its iteration.
    struct SparseEntry {
        unowned(unsafe) let model: any PersistentModel

        func holds(_ object: ObjectIdentifier) -> Bool { ObjectIdentifier(model) == object }
    }

    /// A model of a class that does not unregister its instances.
    struct WeakEntry {
        weak var model: (any PersistentModel)?
    }

    /// Object numbers per page: small, so that models alive far apart (a batch
    /// of a sorted result) keep few empty entries alive beside them.
    static let pageShift = 4
    static let pageSize = 1 << pageShift

    /// The pages by page number (object number >> `pageShift`), `nil` where no entry is set.
    private var pages: [UnsafeMutablePointer<Entry>?] = []
    /// The slab of `pool` each page was taken from.
    private var pageSlabs: [Int32] = []
    /// Where pages come from (see ``PagePool``).
    private var pool = PagePool()
    /// Which entries of each page are set, a bit per entry.
    private var occupied: [UInt16] = []
    /// Unretained entries of numbers beyond the directory's reach.
    private var sparse: [UInt64: SparseEntry] = [:]
    /// Weakly held models, by number. A dead one still holds its weak
    /// reference (a little memory) until the sweep clears it.
    private var weakEntries: [UInt64: WeakEntry] = [:]
    /// Entries set in the pages and the dictionaries (live models, and weakly
    /// held dead ones not cleared yet).
    var count: Int { pagedCount + sparse.count + weakEntries.count }
    /// Entries set in the pages.
    private var pagedCount = 0
    /// Pages allocated now.
    private(set) var pageCount = 0
    /// Weak registrations since dead entries were last cleared, and when to
    /// clear them again.
    private var weakRegistrations = 0
    private var sweepAt = 1024

    init() {}

    /// Whether no entry is set.
    var isEmpty: Bool { count == 0 }

    /// Entries in use, set or not: those of the pages holding an entry, and
    /// the dictionaries'. What the registry's memory follows, at 16 bytes
    /// each in pages, plus the directory's 14 bytes per page number.
    var slotCount: Int { pageCount * Self.pageSize + sparse.count + weakEntries.count }

    /// Slabs the pool holds, in use or kept (at most one kept empty).
    var slabCount: Int { pool.slabCount }

    /// The page and slot of a number the directory reaches.
    @inline(__always)
    private func paged(_ id: UInt64) -> UnsafeMutablePointer<Entry>? {
        guard id < UInt64(pages.count) << Self.pageShift,
            let page = pages.withUnsafeBufferPointer({ $0[Int(id >> Self.pageShift)] })
        else { return nil }
        return page + (Int(id) & (Self.pageSize - 1))
    }

    /// The live model registered for an object number.
    subscript(id: UInt64) -> (any PersistentModel)? {
        if let entry = paged(id), let model = entry.pointee.model { return model }
        if !sparse.isEmpty, let entry = sparse[id] { return entry.model }
        return weakEntries.isEmpty ? nil : weakEntries[id]?.model
    }

    /// Whether a model is registered for an object number, found without
    /// touching the model when its entry is in a page.
    func hasModel(_ id: UInt64) -> Bool {
        if let entry = paged(id), entry.pointee.model != nil { return true }
        return self[id] != nil
    }

    /// The live model registered for an object number, if it is a `T`.
    @inline(__always)
    func model<T: PersistentModel>(_ id: UInt64, as type: T.Type) -> T? {
        // The common case: an entry of exactly this class, no dynamic cast.
        if let entry = paged(id), let model = entry.pointee.model {
            if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model as AnyObject, to: T.self) }
            return model as? T
        }
        guard let model = self[id] else { return nil }
        if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model as AnyObject, to: T.self) }
        return model as? T
    }

    mutating func register(_ model: any PersistentModel, id: UInt64) {
        register(model, id: id, unretained: type(of: model)._$unregistersOnDeinit)
    }

    /// Registers a model whose class is known to unregister its instances on
    /// `deinit` (`unretained`) or not, as a caller registering many of one
    /// class knows. It replaces whatever the number held.
    mutating func register(_ model: any PersistentModel, id: UInt64, unretained: Bool) {
        guard unretained else {
            removeUnretained(id)
            weakEntries[id] = WeakEntry(model: model)
            weakRegistrations += 1
            if weakRegistrations >= sweepAt { sweep() }
            return
        }
        if !weakEntries.isEmpty { weakEntries[id] = nil }
        let entry = Entry(model)
        let page = id >> Self.pageShift
        if page < UInt64(pages.count) {
            set(entry, page: Int(page), slot: Int(id) & (Self.pageSize - 1))
        } else if id <= UInt64(max(1 << 16, 2 * (pages.count << Self.pageShift) + 64)), id < UInt64(Int32.max) {
            // The directory grows by doubling, as an array of one slot per number did.
            let grown = max(Int(page) + 1, 2 * pages.count)
            pages.append(contentsOf: repeatElement(nil, count: grown - pages.count))
            pageSlabs.append(contentsOf: repeatElement(-1, count: grown - pageSlabs.count))
            occupied.append(contentsOf: repeatElement(0, count: grown - occupied.count))
            set(entry, page: Int(page), slot: Int(id) & (Self.pageSize - 1))
            if !sparse.isEmpty { moveSparseEntriesIntoPages(replacing: id) }
        } else {
            sparse[id] = SparseEntry(model: model)
        }
    }

    /// Moves the dictionary's entries that the grown directory now covers into
    /// its pages, where look-ups of those numbers go; the one for `id` was just replaced.
    private mutating func moveSparseEntriesIntoPages(replacing id: UInt64) {
        let covered = UInt64(pages.count) << Self.pageShift
        for (number, entry) in sparse where number < covered {
            sparse[number] = nil
            if number != id { set(Entry(entry.model), page: Int(number >> Self.pageShift), slot: Int(number) & (Self.pageSize - 1)) }
        }
    }

    /// Sets an entry, making its page if needed. Inlined into registering:
    /// most entries go to a page that exists.
    @inline(__always)
    private mutating func set(_ entry: Entry, page: Int, slot: Int) {
        let storage = pages.withUnsafeBufferPointer { $0[page] } ?? makePage(page)
        storage[slot] = entry
        let bit = UInt16(1) << slot
        if occupied[page] & bit == 0 {
            occupied[page] |= bit
            pagedCount += 1
        }
    }

    /// Takes a page from the pool for page number `page`.
    @inline(never)
    private mutating func makePage(_ page: Int) -> UnsafeMutablePointer<Entry> {
        let taken = pool.take()
        pages[page] = taken.page
        pageSlabs[page] = taken.slab
        pageCount += 1
        return taken.page
    }

    /// Clears an entry, freeing its page once no entry of it is set.
    private mutating func clear(page: Int, slot: Int) {
        let bit = UInt16(1) << slot
        guard occupied[page] & bit != 0, let storage = pages[page] else { return }
        occupied[page] &= ~bit
        pagedCount -= 1
        storage[slot] = Entry()
        if occupied[page] == 0 {
            // Every entry of it is clear again: as the pool hands pages out.
            pool.give(storage, slab: pageSlabs[page])
            pages[page] = nil
            pageCount -= 1
        }
    }

    /// Clears the unretained entry of a number, in a page or the dictionary.
    private mutating func removeUnretained(_ id: UInt64) {
        if id < UInt64(pages.count) << Self.pageShift {
            clear(page: Int(id >> Self.pageShift), slot: Int(id) & (Self.pageSize - 1))
        } else if !sparse.isEmpty {
            sparse[id] = nil
        }
    }

    mutating func remove(_ id: UInt64) {
        removeUnretained(id)
        if !weakEntries.isEmpty { weakEntries[id] = nil }
    }

    /// Removes the entry for an object number if it holds this instance (a
    /// model's `deinit`, or its backing data replaced).
    mutating func remove(_ id: UInt64, ifHolding object: ObjectIdentifier) {
        if id < UInt64(pages.count) << Self.pageShift {
            let (page, slot) = (Int(id >> Self.pageShift), Int(id) & (Self.pageSize - 1))
            if let storage = pages[page], storage[slot].holds(object) { clear(page: page, slot: slot) }
        } else if !sparse.isEmpty, sparse[id]?.holds(object) == true {
            sparse[id] = nil
        }
        if !weakEntries.isEmpty, let weak = weakEntries[id]?.model, ObjectIdentifier(weak) == object { weakEntries[id] = nil }
    }

    /// Every live registered model with its object number, by number (pages first).
    var entries: [(id: UInt64, model: any PersistentModel)] {
        var result: [(id: UInt64, model: any PersistentModel)] = []
        for (page, storage) in pages.enumerated() {
            guard let storage else { continue }
            for slot in 0..<Self.pageSize {
                if let model = storage[slot].model { result.append((UInt64(page << Self.pageShift + slot), model)) }
            }
        }
        for (id, entry) in sparse { result.append((id, entry.model)) }
        for (id, entry) in weakEntries { if let model = entry.model { result.append((id, model)) } }
        return result
    }

    /// Clears the entries of dead weakly held models, in time proportional to
    /// the weak registrations since the last sweep (amortized O(1) per registration).
    private mutating func sweep() {
        weakEntries = weakEntries.filter { $0.value.model != nil }
        weakRegistrations = 0
        sweepAt = max(1024, 2 * weakEntries.count)
    }
}

/// The memory of the registry's pages: slabs of 256 pages (128 KB), mapped
/// apart from the heap, each page handed out and taken back whole.
///
/// Pages from `malloc` would lie among the models a fetch makes, one page
/// every 16 models: a loop over many models (reading a property of each)
/// would then touch an eighth more memory, and more cache lines. From
/// slabs of their own the models stay packed. A slab is unmapped once none
/// of its pages is in use, except one kept empty so that a program making
/// and dropping one model at the edge does not map and unmap at every step.
struct PagePool: ~Copyable {
    typealias Entry = ModelRegistry.Entry

    static let pagesPerSlab = 256
    static var slabEntries: Int { pagesPerSlab * ModelRegistry.pageSize }

    private struct Slab {
        let base: UnsafeMutablePointer<Entry>
        /// Whether `base` was mapped (else allocated, if mapping failed).
        let mapped: Bool
        /// The pages not handed out, by index.
        var free: [UInt16]
        var inUse: Int { PagePool.pagesPerSlab - free.count }
    }

    private var slabs: [Slab?] = []
    /// The slabs with a free page, each once.
    private var available: [Int32] = []
    /// Slabs held now.
    private(set) var slabCount = 0
    /// Slabs held with no page in use: at most one is kept.
    private var emptySlabs = 0

    init() {}

    deinit {
        for slab in slabs {
            guard let slab else { continue }
            Self.release(slab)
        }
    }

    /// A page whose entries are all clear, and the slab it comes from.
    mutating func take() -> (page: UnsafeMutablePointer<Entry>, slab: Int32) {
        let slab = available.last ?? makeSlab()
        guard var taken = slabs[Int(slab)] else {
            // Never listed once released; were it, listing it again would be wrong.
            available.removeAll { $0 == slab }
            return take()
        }
        slabs[Int(slab)] = nil  // no second reference while `free` changes: it stays unique
        if taken.inUse == 0 { emptySlabs -= 1 }
        let index = Int(taken.free.removeLast())
        if taken.free.isEmpty { available.removeLast() }
        let page = taken.base + index * ModelRegistry.pageSize
        slabs[Int(slab)] = taken
        return (page, slab)
    }

    /// Takes back a page from `slab` whose entries are all clear.
    mutating func give(_ page: UnsafeMutablePointer<Entry>, slab: Int32) {
        guard var held = slabs[Int(slab)] else { return }
        slabs[Int(slab)] = nil
        if held.free.isEmpty { available.append(slab) }
        held.free.append(UInt16((page - held.base) / ModelRegistry.pageSize))
        guard held.inUse == 0 else {
            slabs[Int(slab)] = held
            return
        }
        if emptySlabs == 0 {
            emptySlabs = 1
            slabs[Int(slab)] = held
            return
        }
        // Another slab is kept empty already: this one goes.
        if let position = available.lastIndex(of: slab) { available.remove(at: position) }
        Self.release(held)
        slabCount -= 1
    }

    /// Maps a new slab, its entries clear, and lists it as available.
    private mutating func makeSlab() -> Int32 {
        let bytes = Self.slabEntries * MemoryLayout<Entry>.stride
        let base: UnsafeMutablePointer<Entry>
        var mapped = false
        if let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != UnsafeMutableRawPointer(bitPattern: -1)
        {
            base = memory.bindMemory(to: Entry.self, capacity: Self.slabEntries)
            mapped = true
        } else {
            base = .allocate(capacity: Self.slabEntries)
        }
        base.initialize(repeating: Entry(), count: Self.slabEntries)
        let slab = Slab(base: base, mapped: mapped, free: (0..<UInt16(Self.pagesPerSlab)).reversed())
        let index: Int
        if let hole = slabs.firstIndex(where: { $0 == nil }) {
            index = hole
            slabs[hole] = slab
        } else {
            index = slabs.count
            slabs.append(slab)
        }
        slabCount += 1
        emptySlabs += 1
        available.append(Int32(index))
        return Int32(index)
    }

    private static func release(_ slab: Slab) {
        slab.base.deinitialize(count: slabEntries)
        if slab.mapped {
            munmap(UnsafeMutableRawPointer(slab.base), slabEntries * MemoryLayout<Entry>.stride)
        } else {
            slab.base.deallocate()
        }
    }
}
