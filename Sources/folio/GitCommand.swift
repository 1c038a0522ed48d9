import ArgumentParser
import FolioREPL
import Foundation

extension FolioCommand {
    /// `folio git setup [--check] [--command PATH]`: Git integration.
    struct Git: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a Git repository up to merge Folio packages (folio git setup).",
            subcommands: [Setup.self])
    }
}

extension FolioCommand.Git {
    /// `folio git setup`: writes the `.gitattributes` line and registers the merge driver (``GitSetup``).
    struct Setup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Route the repository's Folio packages to folio's merge driver.",
            discussion: """
                Run inside a Git work tree. Adds "\(GitSetup.attributesLine)" to the repository's \
                top-level .gitattributes (other lines kept; commit it), and registers the driver in the \
                repository's local config: merge.folio.name, and merge.folio.driver = this folio's \
                absolute path followed by merge-file %O %A %B %P. Git does not copy merge drivers into \
                clones: every clone runs folio git setup once. Running it again changes nothing.

                --check changes nothing: it says whether Git merges the repository's packages with \
                folio (exit status 0) or not (exit status 1).
                """)

        @Flag(name: .long, help: "Report whether this repository is set up; change nothing (exit status 1 if not).")
        var check = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The folio executable the driver runs (default: this one).",
                valueName: "path"))
        var command: String?

        func run() throws {
            let executable: String
            if let command {
                let url = URL(fileURLWithPath: command).standardizedFileURL
                guard FileManager.default.isExecutableFile(atPath: url.path) else {
                    Output.error("error: --command \(command): no executable file there")
                    throw ExitCode(2)
                }
                executable = url.path
            } else {
                guard let path = Platform.executablePath else {
                    Output.error("error: cannot tell where this folio executable is; name it with --command PATH")
                    throw ExitCode(2)
                }
                executable = path
            }
            do {
                let setup = GitSetup(
                    git: try GitProgram.onPath(),
                    directory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                    command: executable)
                if check {
                    let (isSetUp, report) = try setup.check()
                    Output.standard(report.map { $0 + "\n" }.joined())
                    if !isSetUp { throw ExitCode.failure }
                } else {
                    Output.standard(try setup.run().map { $0 + "\n" }.joined())
                }
            } catch let error as GitError {
                Output.error("error: \(error)")
                throw ExitCode(2)
            }
        }
    }
}

extension FolioCommand {
    /// `folio merge-file BASE OURS THEIRS PATH`: the merge driver Git runs (``MergeDriver``).
    struct MergeFile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-file",
            abstract: "Git's merge driver for the files of Folio packages (set up by folio git setup).",
            discussion: """
                Git runs it as merge-file %O %A %B %P for a file inside a *.folio package that both \
                sides changed: it merges the three versions object by object, writes the result over \
                OURS, and exits 0 when clean, 1 when conflicts remain (recorded in the package: open it \
                in folio and resolve them), 2 on errors (message on stderr, OURS unchanged).
                """)

        @Argument(help: ArgumentHelp("The common ancestor's version (Git's %O).", valueName: "base"))
        var base: String
        @Argument(help: ArgumentHelp("Our version (%A); the result is written over it.", valueName: "ours"))
        var ours: String
        @Argument(help: ArgumentHelp("Their version (%B).", valueName: "theirs"))
        var theirs: String
        @Argument(help: ArgumentHelp("The file's path in the repository (%P).", valueName: "path"))
        var path: String

        func run() throws {
            let outcome = MergeDriver.run(
                [base, ours, theirs, path],
                in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            if let message = outcome.message { Output.error(message) }
            if outcome.status != .clean { throw ExitCode(outcome.status.rawValue) }
        }
    }
}

extension FolioCommand {
    /// `folio merge BASE OURS THEIRS [-o OUT]`: three packages merged (``PackageMergeCommand``).
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge two edited copies of a package with the copy they started from.",
            discussion: """
                Merges OURS and THEIRS, two copies of one document edited apart (two branches, two \
                machines, a sync tool's conflict copy), with BASE, the copy they both started from, \
                object by object, and writes the result to OUT, or over OURS without -o (as git \
                merge-file does). Both sides' edits are kept; where they disagree OURS's value is \
                kept and the conflict recorded in the result: open it in folio and run conflicts, \
                then resolve. Exit status 0 when clean, 1 when conflicts were recorded, 2 on errors \
                (message on stderr, nothing written). OUT must not exist yet, unless it is OURS.
                """)

        @Argument(help: ArgumentHelp("The package both copies started from.", valueName: "base"))
        var base: String
        @Argument(help: ArgumentHelp("Our copy; replaced by the result without -o.", valueName: "ours"))
        var ours: String
        @Argument(help: ArgumentHelp("Their copy.", valueName: "theirs"))
        var theirs: String
        @Option(
            name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Where to write the merged package (must not exist).", valueName: "out"))
        var output: String?

        func run() throws {
            let outcome = PackageMergeCommand.run(
                base: base, ours: ours, theirs: theirs, output: output,
                in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            Output.standard(outcome.output)
            if let message = outcome.message { Output.error(message) }
            if outcome.status != .clean { throw ExitCode(outcome.status.rawValue) }
        }
    }
}
