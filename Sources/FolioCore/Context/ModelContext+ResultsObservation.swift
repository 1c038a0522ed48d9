/// What a context tells the ``ResultsObserver``s over it: which objects each
/// edit, undo, redo, merge or rollback changed, once the change is complete.
///
/// The change points (an attribute set, a link list changed, an insert, a
/// removal or its restore, a merged change set, a graph replaced) note the
/// objects here; the ends of operations (``ModelContext/registerUndo(_:_:)``,
/// the edits that record no undo, ``ModelContext/mergeSavedChanges()``,
/// ``ModelContext/rollback()``, a save) publish what was noted to every
/// observer, which re-evaluates those objects only. A context no observer
/// follows has no ``ModelContext/resultsObservation`` and every note is one
/// `nil` check.
final class ResultsObservation {
    /// An object changed since the last publication: its entity, and the
    /// property number changed (an attribute's index, or the attribute count
    /// plus a relationship's slot), `nil` when any may have.
    struct Change {
        var entity: Int
        var property: Int?
    }

    /// What is published to an observer.
    struct Changes {
        /// Changed objects by object number.
        var objects: [UInt64: Change] = [:]
        /// The context's graph was replaced (a rollback): any object may differ.
        var graphReplaced = false
        /// The context saved: its baseline (what an observer of saved state only reads) moved.
        var saved = false

        var isEmpty: Bool { objects.isEmpty && !graphReplaced && !saved }
    }

    private struct WeakObserver {
        weak var observer: (any ContextChangeObserving)?
    }

    private var observers: [WeakObserver] = []
    private var pending = Changes()
    /// Whether a publication is running: a change an observer's `onChange` makes
    /// is published after it, not inside it.
    private var publishing = false

    func add(_ observer: any ContextChangeObserving) {
        observers.removeAll { $0.observer == nil }
        observers.append(WeakObserver(observer: observer))
    }

    var hasObservers: Bool { observers.contains { $0.observer != nil } }

    @inline(__always)
    func note(_ id: UInt64, entity: Int, property: Int?) {
        if let existing = pending.objects[id], existing.property != property {
            pending.objects[id] = Change(entity: entity, property: nil)
        } else {
            pending.objects[id] = Change(entity: entity, property: property)
        }
    }

    func noteGraphReplaced() { pending.graphReplaced = true }
    func noteSaved() { pending.saved = true }

    /// Hands what was noted to every live observer, in the order they were made.
    func publish() {
        guard !publishing, !pending.isEmpty else { return }
        publishing = true
        defer { publishing = false }
        while !pending.isEmpty {
            let changes = pending
            pending = Changes()
            for entry in observers { entry.observer?.contextDidChange(changes) }
        }
    }
}

/// An observer of a context's changes (``ResultsObserver``, whatever its generic parameters).
protocol ContextChangeObserving: AnyObject {
    /// Called on the context's thread once an operation has changed `changes`;
    /// the graph is consistent (never in the middle of an edit).
    func contextDidChange(_ changes: ResultsObservation.Changes)
}

extension ModelContext {
    /// Starts telling `observer` what this context changes.
    func addResultsObserver(_ observer: any ContextChangeObserving) {
        if resultsObservation == nil { resultsObservation = ResultsObservation() }
        resultsObservation?.add(observer)
    }

    /// Notes that the object at `ref` changed (`property` as ``ResultsObservation/Change``).
    @inline(__always)
    func noteObservedChange(_ ref: ObjectRef, property: Int? = nil) {
        guard let resultsObservation else { return }
        resultsObservation.note(graph.tables[Int(ref.entity)].ids[Int(ref.row)], entity: Int(ref.entity), property: property)
    }

    /// Notes that the objects at `refs` changed, any property.
    func noteObservedChanges<Refs: Sequence>(_ refs: Refs) where Refs.Element == ObjectRef {
        guard let resultsObservation else { return }
        for ref in refs {
            resultsObservation.note(graph.tables[Int(ref.entity)].ids[Int(ref.row)], entity: Int(ref.entity), property: nil)
        }
    }

    /// Tells the observers what was noted since the last call: the end of an
    /// operation, with the graph consistent.
    @inline(__always)
    func publishObservedChanges() {
        resultsObservation?.publish()
    }
}
