import Foundation
import Testing
import FolioTestSupport

/// `folio git setup` and `folio merge-file` on real repositories, through the
/// real `git` (``GitRepository``): the attributes and the driver are set up
/// once and left alone by a second run, and Git's merge, rebase and
/// cherry-pick run the driver for files inside packages.
@Suite(.enabled(if: GitRepository.isAvailable, GitRepository.unavailableReason))
struct GitSetupCommandTests {
    /// `folio ARGUMENTS` in `directory` (default: the repository's top), with the tests' Git environment.
    static func folio(_ arguments: [String], in repository: GitRepository, at directory: URL? = nil) throws -> ProgramRun {
        try runFolio(arguments, in: directory ?? repository.url, environment: GitRepository.environment)
    }

    /// The driver command `folio git setup` registers for the built folio.
    static let driver = BuiltProgram.folio.resolvingSymlinksInPath().path + " merge-file %O %A %B %P"

    @Test("sets the attributes and the driver up; Git then routes a package's files to folio; a second run changes nothing")
    func setUpOnce() throws {
        let repository = try GitRepository()
        let before = try Self.folio(["git", "setup", "--check"], in: repository)
        #expect(before.status == 1)
        #expect(before.stdout.hasSuffix("is not set up: run folio git setup\n"), "\(before.stdout)")

        let first = try Self.folio(["git", "setup"], in: repository)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "")
        #expect(first.stdout.contains("created .gitattributes: **/*.folio/** merge=folio\n"))
        #expect(first.stdout.contains("set merge.folio.driver: \(Self.driver)\n"))
        #expect(first.stdout.hasSuffix("Git does not copy merge drivers into clones: run folio git setup once in every clone\n"))
        #expect(try repository.attribute("merge", of: "Doc.folio/parts/Animal/00000000-0000.xml") == "folio")
        #expect(try repository.attribute("merge", of: "deep/er/Doc.folio/manifest.xml") == "folio")
        #expect(try repository.attribute("merge", of: "Doc.folio/blobs/ab/cdef") == "folio")
        #expect(try repository.attribute("merge", of: "README.md") == "unspecified")
        #expect(try repository.config("merge.folio.driver") == Self.driver)
        #expect(try repository.config("merge.folio.name") == "Folio document packages (folio merge-file)")

        let attributes = try repository.read(".gitattributes")
        let config = try repository.read(".git/config")
        let second = try Self.folio(["git", "setup"], in: repository)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasPrefix("already set up in "), "\(second.stdout)")
        #expect(second.stdout.contains("nothing changed\n"))
        #expect(try repository.read(".gitattributes") == attributes)
        #expect(try repository.read(".git/config") == config)

        let check = try Self.folio(["git", "setup", "--check"], in: repository)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("Doc.folio/parts/Animal/00000000-0000.xml: merge=folio\n"))
        #expect(check.stdout.contains("merge.folio.driver: \(Self.driver)\n"))
    }

    @Test("keeps .gitattributes' other lines, and finds the top of the work tree from a subfolder")
    func keepsOtherLines() throws {
        let repository = try GitRepository()
        try repository.write("*.png binary", to: ".gitattributes")
        try repository.write("x\n", to: "Sources/App/main.txt")
        try repository.commitAll("attributes")
        let run = try Self.folio(["git", "setup"], in: repository, at: repository.file("Sources/App"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("updated .gitattributes: **/*.folio/** merge=folio\n"))
        #expect(run.stdout.contains("commit .gitattributes"))
        #expect(
            try repository.read(".gitattributes") == """
                *.png binary

                # Folio document packages merge object by object (folio git setup; each clone runs it once)
                **/*.folio/** merge=folio

                """)
        #expect(!FileManager.default.fileExists(atPath: repository.file("Sources/App/.gitattributes").path))
        #expect(try repository.attribute("binary", of: "logo.png") == "set")
        #expect(try repository.status() == [" M .gitattributes"])
    }

    @Test("outside a Git work tree it refuses, saying so, with exit status 2")
    func outsideWorkTree() throws {
        let folder = try TemporaryFolder("no-git")
        var environment = GitRepository.environment
        environment["GIT_CEILING_DIRECTORIES"] = folder.url.deletingLastPathComponent().path
        for arguments in [["git", "setup"], ["git", "setup", "--check"]] {
            let run = try runFolio(arguments, in: folder.url, environment: environment)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            #expect(
                run.stderr.hasPrefix("error: \(folder.url.path) is not inside a Git work tree (git: fatal: not a git repository"),
                "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appending(".gitattributes").path))
    }

    /// A folio at a path with a space and a quote, that logs its arguments, then runs the built folio.
    static func loggingFolio(in folder: TemporaryFolder) throws -> (command: URL, log: URL) {
        let tools = folder.appending("my tools'")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let log = folder.appending("driver.log")
        let command = tools.appendingPathComponent("folio")
        try Data(
            """
            #!/bin/sh
            printf '%s\\n' "$*" >> '\(log.path)'
            exec '\(BuiltProgram.folio.path)' "$@"

            """.utf8
        ).write(to: command)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: command.path)
        return (command, log)
    }

    @Test("--command names the folio the driver runs, quoted for the shell; merge, rebase and cherry-pick run it")
    func driverRuns() throws {
        let repository = try GitRepository()
        let tools = try TemporaryFolder("tools")
        let (command, log) = try Self.loggingFolio(in: tools)
        let setup = try Self.folio(["git", "setup", "--command", command.path], in: repository)
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(try repository.config("merge.folio.driver") == "'\(tools.url.path)/my tools'\\''/folio' merge-file %O %A %B %P")

        // A file inside a package Folio does not merge (it merges line by line), edited apart on two branches.
        try repository.write("one\ntwo\nthree\nfour\nfive\n", to: "Doc.folio/notes.txt")
        try repository.commitAll("notes")
        try repository.createBranch("topic")
        try repository.write("ONE\ntwo\nthree\nfour\nfive\n", to: "Doc.folio/notes.txt")
        let topic = try repository.commitAll("topic edits line 1")
        try repository.switchTo("main")
        try repository.write("one\ntwo\nthree\nfour\nFIVE\n", to: "Doc.folio/notes.txt")
        try repository.commitAll("main edits line 5")

        let merge = try repository.merge("topic")
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(try repository.read("Doc.folio/notes.txt") == "ONE\ntwo\nthree\nfour\nFIVE\n")
        #expect(try String(contentsOf: log, encoding: .utf8).contains("merge-file"))
        #expect(try String(contentsOf: log, encoding: .utf8).hasSuffix(" Doc.folio/notes.txt\n"))

        try repository.git("reset", "--quiet", "--hard", "HEAD~1")
        try FileManager.default.removeItem(at: log)
        let pick = try repository.cherryPick(topic)
        #expect(pick.status == 0, "\(pick.stdout)\(pick.stderr)")
        #expect(try repository.read("Doc.folio/notes.txt") == "ONE\ntwo\nthree\nfour\nFIVE\n")
        #expect(FileManager.default.fileExists(atPath: log.path))

        try repository.git("reset", "--quiet", "--hard", "HEAD~1")
        try FileManager.default.removeItem(at: log)
        try repository.switchTo("topic")
        let rebase = try repository.rebase(onto: "main")
        #expect(rebase.status == 0, "\(rebase.stdout)\(rebase.stderr)")
        #expect(try repository.read("Doc.folio/notes.txt") == "ONE\ntwo\nthree\nfour\nFIVE\n")
        #expect(FileManager.default.fileExists(atPath: log.path))
        #expect(!repository.isStopped())
    }

    @Test("a package file the driver cannot merge: Git stops with it conflicted and shows the driver's reason")
    func driverConflict() throws {
        let repository = try GitRepository()
        #expect(try Self.folio(["git", "setup"], in: repository).status == 0)
        let part = "Doc.folio/parts/Animal/00000000-0000.xml"
        try repository.write("base, not XML\n", to: part)
        try repository.commitAll("base")
        try repository.createBranch("topic")
        try repository.write("theirs, not XML\n", to: part)
        try repository.commitAll("theirs")
        try repository.switchTo("main")
        try repository.write("ours, not XML\n", to: part)
        try repository.commitAll("ours")
        let merge = try repository.merge("topic")
        #expect(merge.status != 0)
        #expect(try repository.conflictedPaths() == [part])
        #expect(repository.isStopped())
        #expect((merge.stdout + merge.stderr).contains("folio merge-file: \(part): "), "\(merge.stdout)\(merge.stderr)")
        #expect(try repository.read(part) == "ours, not XML\n")
    }

    @Test("folio merge-file: a missing argument is a usage error; a clean merge exits 0; an unreadable file exits 2")
    func mergeFileArguments() throws {
        let folder = try TemporaryFolder("merge-file")
        let usage = try runFolio(["merge-file", "O", "A"], in: folder.url)
        #expect(usage.status >= 2)
        #expect(usage.stderr.contains("Missing expected argument '<theirs>'"), "\(usage.stderr)")
        _ = try folder.write("same\n", to: "O")
        _ = try folder.write("changed\n", to: "A")
        _ = try folder.write("same\n", to: "B")
        let clean = try runFolio(["merge-file", "O", "A", "B", "Zoo.folio/manifest.xml"], in: folder.url)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout == "" && clean.stderr == "")
        #expect(try String(contentsOf: folder.appending("A"), encoding: .utf8) == "changed\n")
        let missing = try runFolio(["merge-file", "O", "A", "gone", "Zoo.folio/manifest.xml"], in: folder.url)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("folio merge-file: cannot read theirs gone for Zoo.folio/manifest.xml: "), "\(missing.stderr)")
    }
}
