#if canImport(Darwin)
import Foundation
/// On Apple platforms Folio uses Foundation's undo manager.
public typealias UndoManager = Foundation.UndoManager

extension UndoManager {
    /// Closes the group opened for the current event, as the end of a run-loop
    /// event would; what Folio's own undo manager does on Linux.
    func closeAutomaticGroup() {
        if groupsByEvent, groupingLevel == 1 { endUndoGrouping() }
    }
}
#else
import Foundation
import Synchronization

/// A general-purpose recorder of operations for undo and redo, with the API of
/// Foundation's `UndoManager` (which Foundation on Linux lacks).
///
/// Register the inverse of every change with
/// ``registerUndo(withTarget:handler:)``; while an undo runs, registrations go
/// to the redo stack, and the reverse. Registrations are collected in groups;
/// one group is one step of ``undo()``.
///
/// **Grouping.** With ``groupsByEvent`` (the default), the first registration
/// outside any group opens a group automatically. Foundation closes it at the
/// end of the run-loop event; Linux programs have no run loop, so it is closed
/// by ``endUndoGrouping()``, by ``undo()``, or by the owner — a `ModelContext`
/// closes it in `processPendingChanges()` and `save()`. Explicit
/// ``beginUndoGrouping()`` / ``endUndoGrouping()`` pairs nest; only the
/// outermost pair makes a step.
///
/// Not thread-safe: use one undo manager from one thread or actor, as Foundation requires.
public final class UndoManager {
    private struct Action {
        /// Kept for ``removeAllActions(withTarget:)``.
        let target: ObjectIdentifier
        /// What an app registered: it holds the target weakly, as Foundation's
        /// undo manager does (a context owns its undo manager, and a strong
        /// reference back would keep both alive forever). `nil` for a step.
        let closure: (() -> Void)?
        /// What Folio registered: a value the journal can keep.
        let step: UndoStep?
        /// The context a step applies to, held weakly for the same reason.
        weak var context: ModelContext?

        func run() {
            if let step {
                if let context { step.apply(to: context) }
            } else {
                closure?()
            }
        }
    }

    private final class Group {
        var actions: [Action] = []
        var actionName = ""
        /// When the step was recorded, for `history` (seconds since 1970).
        var time = Date().timeIntervalSince1970
        /// Which group it is, unique in the process: the undo journal keeps
        /// a group's bytes by it, so a save encodes only the steps added since.
        let serial = UndoManager.serials.add(1, ordering: .relaxed).newValue
    }

    /// The last group serial handed out (``RecordedStep/serial``).
    private static let serials = Atomic<UInt64>(0)

    /// A step as the undo journal reads it: its name, time and Folio's
    /// actions, or `nil` actions when an app registered a closure among
    /// them (a closure cannot be kept).
    struct RecordedStep {
        let name: String
        let time: Double
        let steps: [UndoStep]?
        /// The group's serial: the same for as long as the group is on a
        /// stack, never another group's; 0 for a step not taken from one.
        var serial: UInt64 = 0
    }

    /// Puts back steps an undo journal kept, as the undo stack (oldest first)
    /// and the redo stack (next redo last) of `context`, replacing what the
    /// stacks held. Steps beyond ``levelsOfUndo`` are dropped, oldest first.
    func restoreRecordedSteps(
        undo: [RecordedStep], redo: [RecordedStep], for context: ModelContext
    ) {
        defer { _checkInvariants() }
        func group(_ recorded: RecordedStep) -> Group {
            let group = Group()
            group.actionName = recorded.name
            group.time = recorded.time
            group.actions = (recorded.steps ?? []).map {
                Action(target: ObjectIdentifier(context), closure: nil, step: $0, context: context)
            }
            return group
        }
        openGroups.removeAll()
        openedAutomatically = false
        undoStack = undo.map(group)
        redoStack = redo.map(group)
        trim()
    }

    /// The undo stack (oldest first) and the redo stack (next redo last), as
    /// the undo journal keeps them; an open group is not a step yet.
    var recordedSteps: (undo: [RecordedStep], redo: [RecordedStep]) {
        recordedSteps(nearest: .max)
    }

    /// ``recordedSteps``, at most the `limit` nearest steps of each stack (the
    /// next undos and the next redos): what a journal bounded to `limit` steps
    /// can keep, read in time proportional to them, not to the whole stacks.
    func recordedSteps(nearest limit: Int) -> (undo: [RecordedStep], redo: [RecordedStep]) {
        func recorded(_ group: Group) -> RecordedStep {
            var steps: [UndoStep]? = []
            for action in group.actions {
                guard let step = action.step else { steps = nil; break }
                steps?.append(step)
            }
            return RecordedStep(name: group.actionName, time: group.time, steps: steps, serial: group.serial)
        }
        return (undoStack.suffix(max(0, limit)).map(recorded), redoStack.suffix(max(0, limit)).map(recorded))
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// Open groups, innermost last; the first may be the automatic one.
    private var openGroups: [Group] = []
    private var openedAutomatically = false
    private var disableCount = 0

    /// Whether the first registration outside a group opens one automatically. Default `true`.
    public var groupsByEvent = true
    /// The most undo steps kept; 0 (the default) means no limit. Older steps are dropped first.
    public var levelsOfUndo = 0 {
        didSet { trim(); _checkInvariants() }
    }
    /// Whether an undo is running; registrations now go to the redo stack.
    // Settable inside the module: the tests that break an invariant on purpose do it here.
    public internal(set) var isUndoing = false
    /// Whether a redo is running.
    public internal(set) var isRedoing = false

    /// Creates an empty undo manager.
    public init() {}

    /// How deeply groups are nested now (0: none open).
    public var groupingLevel: Int { openGroups.count }

    /// Whether registrations are being recorded (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Whether there is a step to undo (an open group with actions counts).
    public var canUndo: Bool { !undoStack.isEmpty || openGroups.contains { !$0.actions.isEmpty } }
    /// Whether there is a step to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// The number of complete steps on the undo stack (a Folio addition, for history displays).
    public var undoCount: Int { undoStack.count }
    /// The number of steps on the redo stack (a Folio addition).
    public var redoCount: Int { redoStack.count }

    /// The name of the step ``undo()`` would undo, or "".
    public var undoActionName: String {
        openGroups.first.map { $0.actionName } ?? undoStack.last?.actionName ?? ""
    }
    /// The name of the step ``redo()`` would redo, or "".
    public var redoActionName: String { redoStack.last?.actionName ?? "" }
    /// "Undo" followed by the action name, for a menu item.
    public var undoMenuItemTitle: String { undoActionName.isEmpty ? "Undo" : "Undo \(undoActionName)" }
    /// "Redo" followed by the action name, for a menu item.
    public var redoMenuItemTitle: String { redoActionName.isEmpty ? "Redo" : "Redo \(redoActionName)" }

    /// The names of the steps on the undo stack, oldest first (a Folio addition, for `history`).
    public var undoActionNames: [String] { undoStack.map(\.actionName) }
    /// When each step on the undo stack was recorded, oldest first (a Folio
    /// addition, for `history`; a step brought back from the undo journal keeps its time).
    public var undoActionDates: [Date] { undoStack.map { Date(timeIntervalSince1970: $0.time) } }
    /// When each step on the redo stack was recorded, next redo last (a Folio addition).
    public var redoActionDates: [Date] { redoStack.map { Date(timeIntervalSince1970: $0.time) } }
    /// The names of the steps on the redo stack, next redo last (a Folio addition).
    public var redoActionNames: [String] { redoStack.map(\.actionName) }

    /// Names the step being recorded (or, during undo and redo, the step being built).
    public func setActionName(_ actionName: String) {
        defer { _checkInvariants() }
        if let group = openGroups.first { group.actionName = actionName; return }
        if isUndoing { redoStack.last?.actionName = actionName } else { undoStack.last?.actionName = actionName }
    }

    /// Opens a group; everything registered until the matching ``endUndoGrouping()`` is one step.
    public func beginUndoGrouping() {
        openGroups.append(Group())
        _checkInvariants()
    }

    /// Closes the innermost group; closing the outermost one makes it a step.
    ///
    /// Calling it with no group open does nothing (Foundation raises an exception).
    public func endUndoGrouping() {
        defer { _checkInvariants() }
        guard let group = openGroups.popLast() else { return }
        if openGroups.isEmpty { openedAutomatically = false }
        if let outer = openGroups.last {
            outer.actions += group.actions
            if outer.actionName.isEmpty { outer.actionName = group.actionName }
            return
        }
        guard !group.actions.isEmpty else { return }
        if isUndoing {
            redoStack.append(group)
        } else {
            if !isRedoing { redoStack.removeAll() }
            undoStack.append(group)
            trim()
        }
    }

    /// Records an action that, when undone, calls `handler` with `target`.
    ///
    /// The target is not retained (as with Foundation's): if it is gone by then,
    /// the action does nothing. Outside undo and redo, registering clears the redo stack.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let closure = { [weak target] in
            if let target { handler(target) }
        }
        register(Action(target: ObjectIdentifier(target), closure: closure, step: nil, context: nil))
    }

    /// Records a step of Folio's own: what the undo journal can keep.
    func registerUndo(withTarget context: ModelContext, step: UndoStep) {
        guard isUndoRegistrationEnabled else { return }
        register(Action(target: ObjectIdentifier(context), closure: nil, step: step, context: context))
    }

    private func register(_ action: Action) {
        // Outside undo and redo, a registration leaves nothing to redo.
        defer { _checkInvariants(registered: !isUndoing && !isRedoing) }
        if let group = openGroups.last {
            group.actions.append(action)
            if !isUndoing && !isRedoing { redoStack.removeAll() }
            return
        }
        if groupsByEvent && !isUndoing && !isRedoing {
            beginUndoGrouping()
            openedAutomatically = true
            openGroups[0].actions.append(action)
            redoStack.removeAll()
            return
        }
        // During undo/redo the manager's own group is open; reaching here means
        // groupsByEvent is off and no group is open: record a step of one action.
        let group = Group()
        group.actions.append(action)
        if isUndoing { redoStack.append(group) } else { undoStack.append(group); trim() }
    }

    /// Undoes the last step: closes an automatically opened group, then runs the
    /// step's actions in reverse order, recording their inverses as one redo step.
    public func undo() {
        defer { _checkInvariants() }
        if openGroups.count == 1 && (openedAutomatically || groupsByEvent) { endUndoGrouping() }
        guard openGroups.isEmpty, let group = undoStack.popLast() else { return }
        run(group, undoing: true)
    }

    /// Redoes the last undone step.
    public func redo() {
        defer { _checkInvariants() }
        guard openGroups.isEmpty, let group = redoStack.popLast() else { return }
        run(group, undoing: false)
    }

    private func run(_ group: Group, undoing: Bool) {
        if undoing { isUndoing = true } else { isRedoing = true }
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        for action in group.actions.reversed() { action.run() }
        let inverse = openGroups.removeFirst()
        openGroups.removeAll()
        if undoing {
            isUndoing = false
            redoStack.append(inverse)
        } else {
            isRedoing = false
            undoStack.append(inverse)
            trim()
        }
    }

    /// Closes an open automatic group without undoing (what the end of an event does on Apple platforms).
    public func closeAutomaticGroup() {
        if openedAutomatically, openGroups.count == 1 { endUndoGrouping() }
        _checkInvariants()
    }

    /// Empties both stacks and closes open groups.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        openedAutomatically = false
        _checkInvariants()
    }

    /// Removes every action registered with `target` from both stacks.
    public func removeAllActions(withTarget target: AnyObject) {
        let identity = ObjectIdentifier(target)
        func strip(_ groups: inout [Group]) {
            for group in groups { group.actions.removeAll { $0.target == identity } }
            groups.removeAll { $0.actions.isEmpty }
        }
        strip(&undoStack)
        strip(&redoStack)
        for group in openGroups { group.actions.removeAll { $0.target == identity } }
        _checkInvariants()
    }

    /// Stops recording registrations; calls nest, each needs an ``enableUndoRegistration()``.
    public func disableUndoRegistration() {
        disableCount += 1
        _checkInvariants()
    }

    /// Resumes recording after ``disableUndoRegistration()``.
    public func enableUndoRegistration() {
        disableCount = max(0, disableCount - 1)
        _checkInvariants()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    /// What is wrong with the stacks (empty when sound): never undoing and
    /// redoing at once; an undo or redo running inside the group it builds; an
    /// automatic group open only as the outermost one; no more steps than
    /// ``levelsOfUndo``; registration disabled a non-negative number of times;
    /// and, after a registration outside undo and redo (`registered`), nothing
    /// left to redo. O(1).
    func invariantViolations(registered: Bool = false) -> [String] {
        var problems: [String] = []
        if isUndoing && isRedoing { problems.append("undoing and redoing at once") }
        if (isUndoing || isRedoing) && openGroups.isEmpty { problems.append("an undo or redo runs outside its group") }
        if openedAutomatically && openGroups.isEmpty { problems.append("an automatic group is marked open with no group open") }
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo {
            problems.append("\(undoStack.count) undo steps kept, above levelsOfUndo \(levelsOfUndo)")
        }
        if disableCount < 0 { problems.append("registration enabled more times than disabled") }
        if registered, isUndoRegistrationEnabled, !redoStack.isEmpty {
            problems.append("a new registration left \(redoStack.count) redo steps")
        }
        return problems
    }

    /// Checks ``invariantViolations(registered:)`` after every public mutation
    /// (debug builds only; see `InvariantCheck`).
    @inline(__always)
    func _checkInvariants(registered: Bool = false) {
        #if DEBUG
        InvariantCheck.report(invariantViolations(registered: registered), in: "UndoManager")
        #endif
    }
}
#endif
