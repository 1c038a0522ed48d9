import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping the context's undo on disk between sessions: the undo journal,
/// written with each save (``ModelConfiguration/undoJournal``).
extension ModelContext {
    /// Whose undo a journal is: this user on this machine. A journal copied
    /// with the package to another machine or account is refused there.
    static var undoJournalOwner: String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown host"
        return "uid \(getuid()) on \(host)"
    }

    /// Writes the undo journal beside the package's files, atomically (a
    /// durable temporary renamed into place, through the package's guarded
    /// folder), after a save wrote the package: what the journal holds then
    /// applies to the state just saved. A failure is logged and leaves the
    /// save as it is: a journal is never what makes a save fail.
    ///
    /// - Returns: the capture written, or `nil` when the configuration keeps
    ///   no journal (in memory, read-only, or ``ModelConfiguration/undoJournal`` off).
    @discardableResult
    func writeUndoJournal() -> UndoJournal.Capture? {
        #if canImport(Darwin)
        return nil
        #else
        let configuration = core.configuration
        guard let limits = configuration.undoJournal, configuration.allowsSave, let package = sharedDocument.package else {
            return nil
        }
        let steps = undoManager?.recordedSteps ?? ([], [])
        let capture = UndoJournal.capture(steps, in: graph, mergeEpoch: mergeEpoch, owner: Self.undoJournalOwner, limits: limits)
        let bytes = capture.journal.encode(layout: graph.layout)
        let folder = package.folder
        let item = folder.item(DocumentPackage.undoJournalFileName)
        do {
            try folder.writeAtomically(item) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, bytes, path: item.path)
            }
        } catch {
            FolioLog.report("the undo journal \(item.path) was not written: \(error)")
        }
        return capture
        #endif
    }
}
