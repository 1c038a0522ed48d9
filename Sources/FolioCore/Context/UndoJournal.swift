/// The undo and redo steps of a document's editing, by identifier, as they
/// are kept on disk between sessions (the file `.folio-undo` in the package).
///
/// Rows are a graph's own and change from one open to the next, so a journal
/// names objects by entity and identifier; values are their canonical text
/// (the part files' own, ``ValueText``). The header says whose it is (this
/// user on this machine: undo is private), the schema it was written for, and
/// the state it applies to — each object its steps name, with a hash of each
/// of that object's properties as it was saved — so a document changed
/// elsewhere since is recognised by content, property by property, never by a
/// file's time.
///
/// The encoding is strict: ``decode(_:layout:owner:)`` refuses whatever
/// ``encode()`` could not have written, with an ``UndoJournalError``.
struct UndoJournal: Equatable {
    /// The file's first bytes.
    static let magic: [UInt8] = Array("FOLIO-UNDO\n".utf8)
    /// The version ``encode()`` writes and the only one ``decode(_:layout:owner:)`` reads.
    static let version = 2
    /// The largest journal read: more than the largest ``UndoJournalLimits/maximumBytes`` allowed.
    static let maximumFileSize = 1 << 30

    /// An object, by entity (its index in the schema) and identifier.
    struct Object: Hashable {
        var entity: Int
        var id: UInt64
    }

    /// An object's content as it was saved, property by property, for
    /// telling which of its properties changed since.
    struct SavedObject: Equatable {
        var object: Object
        /// A hash of each property (``UndoJournal/propertyHashes(of:in:)``):
        /// the attributes, then the relationship slots, in schema order;
        /// `nil` when the object was not live.
        var properties: [UInt64]?
    }

    /// One undo or redo step of the undo manager: what one `undo()` takes back.
    struct Group: Equatable {
        var name: String
        /// When it was recorded, in seconds since 1970.
        var time: Double
        /// The actions, in the order they were registered (undo runs them in reverse).
        var steps: [Step]
    }

    /// One of Folio's undo actions (``UndoStep``), by identifier.
    enum Step: Equatable {
        case removal([Object], name: String)
        case setValue(Object, attribute: Int, value: Value, name: String)
        case revertLinks([Link], name: String, exact: Bool)
        /// `exact` false: recorded before a merge, so put back rebased.
        case restore(Restore, name: String, exact: Bool)
    }

    /// A ``LinkChange`` by identifier; the target's entity is the slot's destination.
    enum Link: Equatable {
        case inserted(Object, slot: Int, target: UInt64, at: Int)
        case removed(Object, slot: Int, target: UInt64, at: Int)
        /// `nil`: none (written as 0, which is never an identifier).
        case toOne(Object, slot: Int, old: UInt64?, new: UInt64?)
        case absent(Object, slot: Int, wasAbsent: Bool)
        case replaced(Object, slot: Int, old: [UInt64], new: [UInt64])
    }

    /// A ``DeletionRecord`` by identifier, with the removed objects' values:
    /// after reopening, the document no longer holds them.
    struct Restore: Equatable {
        struct Removed: Equatable {
            var object: Object
            var values: [Value]
        }
        struct List: Equatable {
            var object: Object
            var slot: Int
            var one: UInt64?
            var many: [UInt64]
            var absent: Bool
        }
        struct Edits: Equatable {
            var object: Object
            /// Property numbers: attributes, then relationship slots after them.
            var attributes: [Int]
        }
        var removed: [Removed]
        var lists: [List]
        var cuts: [Link]
        var edits: [Edits]
    }

    /// Whose journal it is: the user and the machine.
    var owner: String
    /// ``schemaHash(_:)`` of the schema it was written for.
    var schemaHash: UInt64
    /// The objects the steps name, as they were at the save that wrote it.
    var states: [SavedObject]
    /// The undo stack, oldest first.
    var undo: [Group]
    /// The redo stack, the next redo last.
    var redo: [Group]
}
