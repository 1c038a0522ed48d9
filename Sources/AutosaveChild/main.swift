// A program that edits a document through the main context with autosave on
// (the defaults), for the kill and exit tests of FolioCLITests/AutosaveExitTests:
//
//   AutosaveChild PACKAGE FIRST LAST
//
// opens PACKAGE (an Animals-like package with an AnimalCategory entity), and for
// each N in FIRST...LAST inserts the category `vN` and calls
// processPendingChanges(), which autosaves: the save is published at once and
// the package written in the background. After each autosave it prints N. Then
// it calls exit(0) at once: whatever the background writer has not written yet
// must be written by the exit flush, not lost.
import Folio
import Foundation

@MainActor func run() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 4, let first = Int(arguments[2]), let last = Int(arguments[3]), first <= last else {
        FileHandle.standardError.write(Data("usage: AutosaveChild PACKAGE FIRST LAST\n".utf8))
        return 2
    }
    do {
        let container = try ModelContainer(contentsOf: URL(fileURLWithPath: arguments[1]))
        let context = container.mainContext
        for version in first...last {
            try context.insert("AnimalCategory", ["name": .string("v\(version)")])
            context.processPendingChanges()
            // Unbuffered, so the parent sees each version as soon as it is autosaved.
            FileHandle.standardOutput.write(Data("\(version)\n".utf8))
        }
        // Still open: no teardown writes the last autosaves, only the exit flush.
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("AutosaveChild: \(error)\n".utf8))
        return 1
    }
}

exit(MainActor.assumeIsolated { run() })
