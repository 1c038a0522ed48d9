/// The model instances a context has handed out, by object number, held
/// weakly: models are views, so one dropped by the program is simply made
/// again when next needed.
///
/// Object numbers are dense in practice, so they index an array (as
/// ``IdentifierIndex`` does): a to-one read finds its destination's model with
/// one memory access, no hashing. Numbers far beyond the count go to a dictionary.
struct ModelRegistry {
    /// A weak reference to a model.
    struct Entry {
        weak var model: (any PersistentModel)?
    }

    private var dense: [Entry] = []
    private var sparse: [UInt64: Entry] = [:]
    /// Registrations since dead entries were last cleared, and when to clear them
    /// again: a weak reference to a dead model still holds a little memory.
    private var registrations = 0
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
        guard let model = self[id] else { return nil }
        // An exact class match needs no dynamic cast.
        if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model as AnyObject, to: T.self) }
        return model as? T
    }

    mutating func register(_ model: any PersistentModel, id: UInt64) {
        if id < UInt64(dense.count) {
            dense[Int(id)].model = model
        } else if id <= UInt64(max(1 << 16, 2 * dense.count + 64)), id < UInt64(Int32.max) {
            dense.append(contentsOf: repeatElement(Entry(), count: Int(id) + 1 - dense.count))
            dense[Int(id)].model = model
            if !sparse.isEmpty { sparse[id] = nil }
        } else {
            sparse[id] = Entry(model: model)
        }
        registrations += 1
        if registrations >= sweepAt { sweep() }
    }

    mutating func remove(_ id: UInt64) {
        if id < UInt64(dense.count) { dense[Int(id)] = Entry() }
        if !sparse.isEmpty { sparse[id] = nil }
    }

    /// Every live registered model with its object number.
    var entries: [(id: UInt64, model: any PersistentModel)] {
        var result: [(id: UInt64, model: any PersistentModel)] = []
        for (id, entry) in dense.enumerated() { if let model = entry.model { result.append((UInt64(id), model)) } }
        for (id, entry) in sparse { if let model = entry.model { result.append((id, model)) } }
        return result
    }

    /// Clears the entries of dead models, in time proportional to the
    /// registrations since the last sweep (amortized O(1) per registration).
    private mutating func sweep() {
        var live = 0
        for index in dense.indices {
            if dense[index].model == nil { dense[index] = Entry() } else { live += 1 }
        }
        sparse = sparse.filter { $0.value.model != nil }
        live += sparse.count
        registrations = 0
        sweepAt = max(1024, dense.count, 2 * live)
    }
}
