/// Why an undo journal was not used: the document then opens without it, with
/// an empty undo stack, and the next save writes a new journal.
public enum UndoJournalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start as an undo journal does.
    case notAJournal
    /// Written by a later Folio, in a version this one cannot read.
    case unsupportedVersion(Int)
    /// The bytes were cut off, changed or never written by Folio (the reason and where).
    case damaged(String)
    /// Written by another user or on another machine: undo is private to both.
    case foreign(owner: String)
    /// Written for another schema than the document's now.
    case schemaChanged
    /// Larger than any journal Folio writes.
    case tooLarge(bytes: Int)
    /// Well formed, but its steps do not fit the document: undoing or redoing
    /// them would break it (a link on one side only, a link to a deleted
    /// object, an object put back twice, a unique value taken twice). Names
    /// the first such step and what it would do.
    case inconsistent(String)

    /// A sentence for people, naming what was wrong.
    public var description: String {
        switch self {
        case .notAJournal: return "the undo journal is not one Folio wrote; it was ignored"
        case .unsupportedVersion(let version):
            return "the undo journal has version \(version), which this Folio cannot read; it was ignored"
        case .damaged(let reason): return "the undo journal is damaged (\(reason)); it was ignored"
        case .foreign(let owner): return "the undo journal belongs to \(owner), not to this user on this machine; it was ignored"
        case .schemaChanged: return "the undo journal was written for another schema; it was ignored"
        case .tooLarge(let bytes): return "the undo journal is \(bytes) bytes, more than Folio writes; it was ignored"
        case .inconsistent(let reason): return "the undo journal's steps do not fit the document (\(reason)); it was ignored"
        }
    }
}
