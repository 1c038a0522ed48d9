/// The model instances a context has handed out, by object number: models are
/// views, so one dropped by the program is simply made again when next needed.
///
/// A `@Model` class unregisters its instances in its `deinit` (the expansion
/// writes one; ``PersistentModel/_$unregistersOnDeinit``), so the registry
/// holds them unretained and unweighted: no weak reference, whose side table
/// would be one more allocation per model, and no sweep. A class that cannot
/// say so (it declares its own `deinit`, or conforms by hand) is held weakly,
/// as before.
///
/// Object numbers are dense in practice, so they index an array (as
/// ``IdentifierIndex`` does): a to-one read finds its destination's model with
/// one memory access, no hashing. Numbers far beyond the count go to a dictionary.
struct ModelRegistry {
    /// A model, unretained when its class unregisters it on `deinit`, else weakly.
    struct Entry {
        /// Valid while set: the model's `deinit` clears it before the memory goes.
        unowned(unsafe) var unretained: (any PersistentModel)?
        weak var weak: (any PersistentModel)?

        init() {}

        init(_ model: any PersistentModel) {
            if type(of: model)._$unregistersOnDeinit { unretained = model } else { weak = model }
        }

        var model: (any PersistentModel)? {
            if let unretained { return unretained }
            return weak
        }

        /// Whether the entry holds this instance.
        func holds(_ object: ObjectIdentifier) -> Bool {
            if let unretained { return ObjectIdentifier(unretained) == object }
            guard let weak else { return false }
            return ObjectIdentifier(weak) == object
        }
    }

    private var dense: [Entry] = []
    private var sparse: [UInt64: Entry] = [:]
    /// Weakly held registrations since dead entries were last cleared, and when
    /// to clear them again: a weak reference to a dead model still holds a little memory.
    private var weakRegistrations = 0
    private var sweepAt = 1024

    /// Whether no model was ever registered (or all were cleared).
    var isEmpty: Bool { dense.isEmpty && sparse.isEmpty }

    /// The live model registered for an object number.
    subscript(id: UInt64) -> (any PersistentModel)? {
        // Through a pointer: copying an entry out of the array would copy its weak reference.
        if id < UInt64(dense.count) { return dense.withUnsafeBufferPointer { $0[Int(id)].model } }
        return sparse.isEmpty ? nil : sparse[id]?.model
    }

    /// The live model registered for an object number, if it is a `T`.
    @inline(__always)
    func model<T: PersistentModel>(_ id: UInt64, as type: T.Type) -> T? {
        if id < UInt64(dense.count) {
            // The common case: an unretained entry of exactly this class, no dynamic cast.
            let found: T?? = dense.withUnsafeBufferPointer { buffer in
                guard let model = buffer[Int(id)].unretained else { return .none }
                guard ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) else { return .some(model as? T) }
                return .some(unsafeDowncast(model as AnyObject, to: T.self))
            }
            if case .some(let model) = found { return model }
        }
        guard let model = self[id] else { return nil }
        if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model as AnyObject, to: T.self) }
        return model as? T
    }

    mutating func register(_ model: any PersistentModel, id: UInt64) {
        let entry = Entry(model)
        if id < UInt64(dense.count) {
            dense[Int(id)] = entry
        } else if id <= UInt64(max(1 << 16, 2 * dense.count + 64)), id < UInt64(Int32.max) {
            dense.append(contentsOf: repeatElement(Entry(), count: Int(id) + 1 - dense.count))
            dense[Int(id)] = entry
            if !sparse.isEmpty { sparse[id] = nil }
        } else {
            sparse[id] = entry
        }
        if entry.unretained == nil {
            weakRegistrations += 1
            if weakRegistrations >= sweepAt { sweep() }
        }
    }

    mutating func remove(_ id: UInt64) {
        if id < UInt64(dense.count) { dense[Int(id)] = Entry() }
        if !sparse.isEmpty { sparse[id] = nil }
    }

    /// Removes the entry for an object number if it holds this instance (a
    /// model's `deinit`, or its backing data replaced).
    mutating func remove(_ id: UInt64, ifHolding object: ObjectIdentifier) {
        if id < UInt64(dense.count) {
            if dense[Int(id)].holds(object) { dense[Int(id)] = Entry() }
        } else if !sparse.isEmpty, sparse[id]?.holds(object) == true {
            sparse[id] = nil
        }
    }

    /// Every live registered model with its object number.
    var entries: [(id: UInt64, model: any PersistentModel)] {
        var result: [(id: UInt64, model: any PersistentModel)] = []
        for (id, entry) in dense.enumerated() { if let model = entry.model { result.append((UInt64(id), model)) } }
        for (id, entry) in sparse { if let model = entry.model { result.append((id, model)) } }
        return result
    }

    /// Clears the entries of dead weakly held models, in time proportional to
    /// the weak registrations since the last sweep (amortized O(1) per registration).
    private mutating func sweep() {
        var live = 0
        for index in dense.indices where dense[index].unretained == nil {
            if dense[index].weak == nil { dense[index] = Entry() } else { live += 1 }
        }
        sparse = sparse.filter { $0.value.model != nil }
        live += sparse.count
        weakRegistrations = 0
        sweepAt = max(1024, dense.count, 2 * live)
    }
}
