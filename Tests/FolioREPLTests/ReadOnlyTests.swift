import Folio
import Foundation
import Testing
@testable import FolioREPL

/// An interpreter opened read-only (`folio --read-only`): reads work, every
/// command that would change the document says it is read-only.
@Suite struct ReadOnlyInterpreterTests {
    @Test("a read-only interpreter reads, shows (read-only) in its prompt, and refuses every edit and save naming the document")
    func refusesEdits() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, readOnly: true))
        #expect(session.interpreter.isReadOnly)
        #expect(session.interpreter.prompt == "Animals (read-only)> ")
        #expect(try session.count("Animal") == 30)
        for command in [
            "insert Animal name=Kiwi", "set 2 name=Eft", "link 2 category 6", "unlink 2 category 1",
            "delete 24", "save",
        ] {
            let error = session.error(command)
            #expect(error?.message.hasPrefix("Animals.folio is open read-only") == true, "\(command): \(String(describing: error))")
            #expect(error?.column == 1)
        }
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(try session.count("Animal") == 30)
    }

    @Test("a read-only interpreter opens a package another holder has open for writing")
    func opensWhileLocked() throws {
        let url = try sampleCopy("Animals")
        let writer = try ModelContainer(contentsOf: url)  // this process's writer: shared, not refused
        let session = try Session(url: url, options: .init(readOnly: true))
        #expect(try session.count("Animal") == 30)
        let edit = ModelContext(writer)
        _ = try edit.insert("Animal", ["name": .string("Kiwi")])
        try edit.save()
        #expect(try session.count("Animal") == 31, "the reader sees this process's saves")
    }
}
