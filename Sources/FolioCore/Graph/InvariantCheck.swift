/// Debug builds' checks of the engine's invariants after every public mutation,
/// as swift-collections' `_checkInvariants()` does: a broken invariant stops the
/// program at the mutation that broke it, not at a later save or a test's end.
///
/// Release builds compile the checks out. Tests run debug builds, so every
/// test that edits a graph or an undo stack exercises them.
///
/// The types checked: ``ObjectGraph`` (links symmetric, no link to a deleted
/// object, the identifier index matching the tables, `nextID` above every
/// identifier, the unique and declared indexes matching the rows) and, on
/// Linux, Folio's ``UndoManager`` (groups nested, `levelsOfUndo` kept, the redo
/// stack emptied by a new registration). A full graph check costs
/// O(objects + links); see ``ObjectGraph/_checkInvariants()`` for how often it runs.
enum InvariantCheck {
    #if DEBUG
    /// Receives broken invariants instead of the default assertion failure, for
    /// the tests that break one on purpose through an internal hook. Task-local,
    /// so tests running in parallel keep the default.
    @TaskLocal static var handler: (@Sendable (_ type: String, _ problems: [String]) -> Void)?

    /// A graph of at most this many rows (live or deleted) is checked whole after every mutation.
    static let alwaysCheckedRows = 64
    /// A larger graph is checked once the mutations since its last check,
    /// times this, reach its row count: each mutation pays for checking about
    /// this many rows, so a million edits of a million-object graph check it a
    /// few times rather than a million times.
    static let rowsCheckedPerMutation = 16

    /// Reports `problems` (nothing when empty): to ``handler``, or as an assertion failure.
    static func report(_ problems: [String], in type: String) {
        guard !problems.isEmpty else { return }
        if let handler { return handler(type, problems) }
        assertionFailure("\(type) invariants broken: \(problems.joined(separator: "; "))")
    }
    #endif
}

extension ObjectGraph {
    /// Checks the graph's invariants (``invariantViolations()``) in debug
    /// builds; called after every public mutation of the graph and of an
    /// editing context. Does nothing in release builds.
    ///
    /// A graph of up to ``InvariantCheck/alwaysCheckedRows`` rows is checked
    /// every time; a larger one once every rows ÷ ``InvariantCheck/rowsCheckedPerMutation``
    /// mutations, which keeps the amortized cost of a check per mutation O(1)
    /// (about 16 rows' worth), whatever the graph's size.
    @inline(__always)
    func _checkInvariants() {
        #if DEBUG
        mutationsSinceInvariantCheck += 1
        let rows = tables.reduce(0) { $0 + $1.rowCount }
        guard
            rows <= InvariantCheck.alwaysCheckedRows
                || mutationsSinceInvariantCheck * InvariantCheck.rowsCheckedPerMutation >= rows
        else { return }
        mutationsSinceInvariantCheck = 0
        InvariantCheck.report(invariantViolations(), in: "ObjectGraph")
        #endif
    }
}
