#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libedit's readline interface, reached at run time.
///
/// folio is built without libedit's headers (a fresh Debian Swift image has
/// the runtime, `libedit.so.2`, but not `libedit-dev`): the library is opened
/// with `dlopen` when the terminal session starts and the few functions and
/// variables folio uses are looked up by name. When it cannot be opened,
/// ``load()`` answers nil and the session reads plain lines instead
/// (``LineEditor/readPlainLine(prompt:)``). `FOLIO_LIBEDIT` names the library
/// to open instead; empty, it turns line editing off.
struct LibEdit: @unchecked Sendable {
    typealias CompletionFunction =
        @convention(c) (UnsafePointer<CChar>?, Int32, Int32)
        -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    typealias GetCharacterFunction = @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32

    // Functions, as readline.h declares them.
    let readline: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    let addHistory: @convention(c) (UnsafePointer<CChar>?) -> Int32
    let usingHistory: @convention(c) () -> Void
    let stifleHistory: @convention(c) (Int32) -> Void
    let readHistory: @convention(c) (UnsafePointer<CChar>?) -> Int32
    let writeHistory: @convention(c) (UnsafePointer<CChar>?) -> Int32
    let parseAndBind: @convention(c) (UnsafePointer<CChar>?) -> Int32
    let copyText: @convention(c) (Int32, Int32) -> UnsafeMutablePointer<CChar>?

    // Variables: where each lives in the library.
    let readlineName: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let basicWordBreakCharacters: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let completionAppendCharacter: UnsafeMutablePointer<Int32>
    let attemptedCompletionFunction: UnsafeMutablePointer<CompletionFunction?>
    let attemptedCompletionOver: UnsafeMutablePointer<Int32>
    let getCharacterFunction: UnsafeMutablePointer<GetCharacterFunction?>
    let lineBuffer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// The names tried in order: the runtime package's soname first.
    static var candidateNames: [String] {
        #if canImport(Darwin)
        return ["/usr/lib/libedit.3.dylib", "libedit.dylib"]
        #else
        return ["libedit.so.2", "libedit.so"]
        #endif
    }

    /// Opens libedit and looks up what folio uses; nil, with the reason, when
    /// it is missing or lacks a symbol.
    static func load(environment: [String: String]) -> Result<LibEdit, LoadFailure> {
        let names: [String]
        if let chosen = environment["FOLIO_LIBEDIT"] {
            guard !chosen.isEmpty else { return .failure(LoadFailure(reason: "FOLIO_LIBEDIT is empty")) }
            names = [chosen]
        } else {
            names = candidateNames
        }
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
            return .failure(LoadFailure(reason: "\(names[0]) was not found"))
        }
        var missing: String?
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let address = dlsym(handle, name) else { missing = missing ?? name; return nil }
            return unsafeBitCast(address, to: type)
        }
        func variable<T>(_ name: String, of type: T.Type) -> UnsafeMutablePointer<T>? {
            guard let address = dlsym(handle, name) else { missing = missing ?? name; return nil }
            return address.assumingMemoryBound(to: type)
        }
        typealias StringFunction = @convention(c) (UnsafePointer<CChar>?) -> Int32
        guard
            let readline = symbol("readline", as: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?).self),
            let addHistory = symbol("add_history", as: StringFunction.self),
            let usingHistory = symbol("using_history", as: (@convention(c) () -> Void).self),
            let stifleHistory = symbol("stifle_history", as: (@convention(c) (Int32) -> Void).self),
            let readHistory = symbol("read_history", as: StringFunction.self),
            let writeHistory = symbol("write_history", as: StringFunction.self),
            let parseAndBind = symbol("rl_parse_and_bind", as: StringFunction.self),
            let copyText = symbol("rl_copy_text", as: (@convention(c) (Int32, Int32) -> UnsafeMutablePointer<CChar>?).self),
            let readlineName = variable("rl_readline_name", of: UnsafePointer<CChar>?.self),
            let basicWordBreakCharacters = variable("rl_basic_word_break_characters", of: UnsafePointer<CChar>?.self),
            let completionAppendCharacter = variable("rl_completion_append_character", of: Int32.self),
            let attemptedCompletionFunction = variable("rl_attempted_completion_function", of: CompletionFunction?.self),
            let attemptedCompletionOver = variable("rl_attempted_completion_over", of: Int32.self),
            let getCharacterFunction = variable("rl_getc_function", of: GetCharacterFunction?.self),
            let lineBuffer = variable("rl_line_buffer", of: UnsafeMutablePointer<CChar>?.self)
        else {
            dlclose(handle)
            return .failure(LoadFailure(reason: "the library opened has no \(missing ?? "symbol")"))
        }
        return .success(
            LibEdit(
                readline: readline, addHistory: addHistory, usingHistory: usingHistory, stifleHistory: stifleHistory,
                readHistory: readHistory, writeHistory: writeHistory, parseAndBind: parseAndBind, copyText: copyText,
                readlineName: readlineName, basicWordBreakCharacters: basicWordBreakCharacters,
                completionAppendCharacter: completionAppendCharacter,
                attemptedCompletionFunction: attemptedCompletionFunction,
                attemptedCompletionOver: attemptedCompletionOver, getCharacterFunction: getCharacterFunction,
                lineBuffer: lineBuffer))
    }

    /// Why libedit could not be used.
    struct LoadFailure: Error {
        let reason: String
    }
}
