import Folio
import Foundation

/// The `folio` REPL's interpreter: one command line in, text out, over a
/// document's editing context. It uses only Folio's public API and knows
/// nothing of terminals, so it is tested without one; the `folio` executable
/// adds line editing, history, completion and script mode around it.
///
/// ```swift
/// let interpreter = try Interpreter(opening: URL(fileURLWithPath: "SampleDocuments/Animals.folio"))
/// interpreter.write = { print($0, terminator: "") }
/// _ = try interpreter.execute("list Animal where diet == 'herbivorous' sort name limit 5")
/// ```
public final class Interpreter {
    /// How the interpreter talks to its user.
    public struct Options: Sendable {
        /// Answer yes to every confirmation (`--yes`, scripts).
        public var assumeYes = false
        /// Results as JSON instead of aligned tables.
        public var json = false
        /// Creates options.
        public init(assumeYes: Bool = false, json: Bool = false) {
            self.assumeYes = assumeYes
            self.json = json
        }
    }

    /// What the front end should do after a command.
    public enum Outcome: Equatable, Sendable {
        /// Read the next command.
        case proceed
        /// Stop: the user quit (unsaved changes were confirmed or there were none).
        case quit
    }

    /// The context every command edits.
    public private(set) var context: ModelContext
    /// The document package being edited.
    public private(set) var documentURL: URL
    /// Options in force.
    public var options: Options
    /// Asks the user a yes/no question (the text ends with "[y/N] "); `false` means no.
    /// Not called when ``Options/assumeYes`` is set.
    public var confirm: (String) -> Bool = { _ in false }
    /// Receives command output (each piece ends with a newline).
    public var write: (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }

    /// Opens an existing package, with an undo manager.
    ///
    /// - Throws: `ModelError` when the package cannot be read.
    public convenience init(opening url: URL, options: Options = Options()) throws {
        let context = ModelContext(try ModelContainer(contentsOf: url))
        context.undoManager = UndoManager()
        self.init(context: context, documentURL: url, options: options)
    }

    /// Wraps an existing context.
    public init(context: ModelContext, documentURL: URL, options: Options = Options()) {
        self.context = context
        self.documentURL = documentURL
        self.options = options
    }

    /// The document's name and, when there are unsaved changes, a `*`: `Animals*> `.
    public var prompt: String {
        documentURL.deletingPathExtension().lastPathComponent + (hasUnsavedChanges ? "*" : "") + "> "
    }

    /// Whether the document has changes not yet saved.
    public var hasUnsavedChanges: Bool { context.hasChanges }

    /// The command names, for help and completion.
    public static let commandNames = ["help", "schema", "list", "count", "show", "insert", "set", "link", "unlink",
                                      "delete", "undo", "redo", "history", "status", "save", "revert", "quit"]

    /// Runs one command line. Blank lines and lines starting with `#` do nothing.
    ///
    /// - Throws: ``CommandError`` naming the offending token's column; the
    ///   document is unchanged by a command that throws.
    public func execute(_ line: String) throws(CommandError) -> Outcome {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let command = words.first, !command.hasPrefix("#") else { return .proceed }
        switch command {
        case "help":
            write("commands: " + Interpreter.commandNames.joined(separator: ", ") + "\n")
            return .proceed
        case "quit":
            return .quit
        default:
            throw CommandError("unknown command '\(command)'; try 'help'", column: 1)
        }
    }

    /// Completion candidates for the word being typed at the end of `line`:
    /// commands first, then entity, attribute and relationship names and ids,
    /// depending on the position.
    public func completions(for line: String) -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count <= 1 else { return [] }
        let prefix = words.first.map(String.init) ?? ""
        return Interpreter.commandNames.filter { $0.hasPrefix(prefix) }
    }
}
