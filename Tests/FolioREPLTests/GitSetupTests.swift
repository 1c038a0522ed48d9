import Foundation
import Testing
@testable import FolioREPL

/// `folio git setup`'s pieces that need no repository: the `.gitattributes`
/// edit (added once, other lines kept) and the driver's command line.
/// (The command itself, on a real repository: FolioCLITests' GitSetupCommandTests.)
@Suite struct GitSetupTests {
    static let block = GitSetup.attributesComment + "\n" + GitSetup.attributesLine + "\n"

    @Test("a repository without .gitattributes gets the comment and the line")
    func newFile() {
        #expect(GitSetup.addingAttributes(to: nil) == Self.block)
        #expect(GitSetup.addingAttributes(to: "") == Self.block)
    }

    @Test("other lines are kept as they are, the block appended after a blank line")
    func keepsOtherLines() {
        #expect(GitSetup.addingAttributes(to: "*.png binary\n") == "*.png binary\n\n" + Self.block)
        #expect(GitSetup.addingAttributes(to: "*.png binary") == "*.png binary\n\n" + Self.block)
        #expect(
            GitSetup.addingAttributes(to: "*.png binary\r\n*.sh text\r\n")
                == "*.png binary\r\n*.sh text\r\n\r\n" + Self.block.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    @Test("a file that has the line already (however spaced) is left alone: a second run adds nothing")
    func idempotent() throws {
        let once = try #require(GitSetup.addingAttributes(to: "*.png binary\n"))
        #expect(GitSetup.addingAttributes(to: once) == nil)
        #expect(GitSetup.addingAttributes(to: "**/*.folio/**\tmerge=folio") == nil)
        #expect(GitSetup.addingAttributes(to: "  **/*.folio/**   merge=folio  \r\n") == nil)
        // Another driver for the same files is not the line: it is added after it (the later line wins in Git).
        #expect(GitSetup.addingAttributes(to: "**/*.folio/** merge=union\n") != nil)
    }

    @Test("the driver runs this folio's path, quoted for the shell only when it must be, with %O %A %B %P")
    func driverCommand() {
        #expect(GitSetup.driverCommand(for: "/usr/local/bin/folio") == "/usr/local/bin/folio merge-file %O %A %B %P")
        #expect(GitSetup.driverCommand(for: "/opt/my tools/folio") == "'/opt/my tools/folio' merge-file %O %A %B %P")
        #expect(GitSetup.shellQuoted("/a/it's/folio") == #"'/a/it'\''s/folio'"#)
        #expect(GitSetup.shellQuoted("/a/$HOME;rm/folio") == "'/a/$HOME;rm/folio'")
        #expect(GitSetup.shellQuoted("/a/b-1.2_x+y/folio") == "/a/b-1.2_x+y/folio")
    }
}

/// `folio git setup`'s exclude lines: every package's undo journal stays out of Git, in this clone only.
@Suite struct GitSetupExcludeTests {
    @Test func aCloneWithoutExcludesGetsTheJournalLinesOnce() throws {
        let added = try #require(GitSetup.addingExcludes(to: nil))
        #expect(added == GitSetup.excludeComment + "\n" + GitSetup.excludeLines.map { $0 + "\n" }.joined())
        #expect(GitSetup.addingExcludes(to: added) == nil)
    }

    @Test func otherExcludeLinesAreKeptAndOnlyMissingLinesAdded() throws {
        let existing = "*.swp\n" + GitSetup.excludeLines[0] + "\n"
        let added = try #require(GitSetup.addingExcludes(to: existing))
        #expect(added.hasPrefix(existing + "\n"))
        #expect(added.hasSuffix(GitSetup.excludeLines[1] + "\n"))
        #expect(added.components(separatedBy: GitSetup.excludeLines[0]).count == 2)
    }
}
