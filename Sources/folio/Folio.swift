import ArgumentParser
import FolioCore
import FolioREPL
import Foundation

/// `folio`: edit Folio document packages from the terminal or a script.
///
/// `folio PATH` is `folio open PATH` (the default subcommand); `folio new PATH
/// --schema FILE` creates a package first. Both then run a ``Session``: a
/// terminal session with line editing when stdin and stdout are terminals, a
/// script otherwise.
@main
struct FolioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folio",
        abstract: "Edit, delete, undo and save Folio document packages.",
        usage: """
            folio <path> [--yes] [--json] [--script <file>] [--read-only]
            folio new <path> --schema <file> [--yes] [--json] [--script <file>]
            folio git setup [--check] [--command <path>]
            folio merge <base> <ours> <theirs> [-o <out>]
            folio merge-file <base> <ours> <theirs> <path>   (run by Git)
            """,
        discussion: """
            folio PATH opens a package (short for folio open PATH). On a terminal it \
            reads commands with line editing, history (~/.folio_history, or the file \
            named by FOLIO_HISTORY) and tab completion; type help. Otherwise, or with \
            --script FILE, it runs the commands as a script: only their output on \
            stdout, and the first error as "error: LINE: message" on stderr with exit \
            status 1. Confirmations need --yes in a script. A script that ends \
            with unsaved changes fails (exit status 1, saying what was discarded) \
            unless it ends with save, or folio runs with --save-at-end or \
            --discard-at-end.

            --yes answers yes to every confirmation; what a destructive command will \
            do (the preview) then goes to stderr, so stdout holds results only. \
            --json writes each command's result as one JSON object on one line, its \
            "command" first; errors, warnings and previews go to stderr as JSON \
            objects: {"level":"error","kind":...,"message":...,"line":N,"column":N} \
            (line in a script, column when known).

            --read-only opens a package without taking its write lock, so it opens \
            even while another program writes it; commands that would change it are \
            refused (save as PATH still writes a copy).

            Examples:
              folio SampleDocuments/Animals.folio
              folio --read-only Zoo.folio
              folio Zoo.folio --yes < edits.txt
              folio new Zoo.folio --schema zoo-schema.xml
              folio git setup          (once per clone: Git merges packages object by object)
              folio merge Base.folio Mine.folio Theirs.folio -o Merged.folio
            """,
        subcommands: [Open.self, New.self, Git.self, Merge.self, MergeFile.self],
        defaultSubcommand: Open.self)

    /// swift-argument-parser's `main`, except that with `--json` a usage error
    /// (a missing path, an unknown option) is one JSON object on stderr, as
    /// every other error is.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let message = fullMessage(for: error)
            let code = exitCode(for: error)
            if CommandLine.arguments.contains("--json"), code != .success, !message.isEmpty {
                Output.json = true
                Output.diagnostic("error", kind: "usage", message.trimmingCharacters(in: .whitespacesAndNewlines))
                Foundation.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Options shared by `open` and `new`: how the session runs.
struct SessionOptions: ParsableArguments {
    @Flag(name: .long, help: "Answer yes to every confirmation (needed for destructive commands in scripts); previews go to stderr.")
    var yes = false

    @Flag(name: .long, help: "Print each result as one JSON object per line, and errors on stderr as JSON objects.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Run the commands in this file as a script.", valueName: "file"))
    var script: String?

    @Flag(
        name: .customLong("save-at-end"),
        help: "In a script: save the document when the script ends, if it has unsaved changes.")
    var saveAtEnd = false

    @Flag(
        name: .customLong("discard-at-end"),
        help: "In a script: discard unsaved changes when the script ends (without it, that is an error).")
    var discardAtEnd = false

    @Flag(
        name: .customLong("read-only"),
        help: "Open the document read-only: it opens even while another program writes it, and edits are refused.")
    var readOnly = false

    @Flag(
        name: .customLong("no-undo-journal"),
        help: "Keep no undo between sessions: neither bring the last session's steps back nor write the journal.")
    var noUndoJournal = false

    var interpreterOptions: Interpreter.Options {
        var options = Interpreter.Options(assumeYes: yes, json: json, readOnly: readOnly)
        options.keepsUndo = !noUndoJournal
        return options
    }

    /// What a script does with unsaved changes when its input ends.
    var atEnd: ScriptSession.AtEnd { saveAtEnd ? .save : discardAtEnd ? .discard : .fail }

    func validate() throws {
        if saveAtEnd && discardAtEnd { throw ValidationError("--save-at-end and --discard-at-end exclude each other") }
    }
}

extension FolioCommand {
    /// `folio [open] PATH`: opens an existing package.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a document package (the default: folio PATH).",
            discussion: "A package named like a subcommand can be opened as ./new or with folio open new.")

        @Argument(help: ArgumentHelp("The document package to open.", valueName: "path"))
        var path: String

        @OptionGroup var options: SessionOptions

        func run() throws {
            try Session.run(opening: URL(fileURLWithPath: path), options: options)
        }
    }

    /// `folio new PATH --schema FILE`: creates an empty package, then opens it.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an empty document package from a schema file, then open it.",
            discussion: """
                The schema file is a <schema> element alone, as in a package's \
                manifest.xml (docs/FORMAT.md). PATH must not exist yet.
                """)

        @Argument(help: ArgumentHelp("The document package to create (Name.folio).", valueName: "path"))
        var path: String

        @Option(name: .long, help: ArgumentHelp("The schema file.", valueName: "file"))
        var schema: String

        @OptionGroup var options: SessionOptions

        func run() throws {
            let url = URL(fileURLWithPath: path)
            Output.json = options.json
            guard !FileManager.default.fileExists(atPath: url.path) else {
                Output.diagnostic("error", kind: "open", "\(path) already exists; folio new only creates new packages")
                throw ExitCode.failure
            }
            do {
                let schema = try Schema(contentsOf: URL(fileURLWithPath: self.schema))
                try DocumentPackage(url: url).write(ObjectGraph(schema: schema))
            } catch {
                Output.diagnostic("error", kind: "open", "\(error)")
                throw ExitCode.failure
            }
            try Session.run(opening: url, options: options)
        }
    }
}
