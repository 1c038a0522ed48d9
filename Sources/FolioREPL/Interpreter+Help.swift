/// `help` and `help COMMAND`.
extension Interpreter {
    func help(_ text: CommandLineText) throws(CommandError) {
        if text.words.count > 1 {
            let topic = text.words[1]
            try expectEnd(text, after: 2)
            guard let command = Self.commandsByName[topic.keyword],
                let entry = Self.commandsByName[command.helpTopic ?? command.name]?.help
            else {
                throw CommandError("no command '\(topic.text)'" + Self.commandHint(for: topic.text), column: topic.column)
            }
            if options.json {
                emit(
                    Self.result(
                        "help",
                        [
                            ("topic", .string(command.helpTopic ?? command.name)), ("usage", .array(entry.usage.map(JSONText.string))),
                            ("summary", .string(entry.summary)),
                            ("details", .array(entry.details.map(JSONText.string))),
                            ("examples", .array(entry.example.map(JSONText.string))),
                        ]))
                return
            }
            for usage in entry.usage { emit(usage) }
            emit("  " + entry.summary)
            for line in entry.details { emit("  " + line) }
            emit("example:")
            for line in entry.example { emit("  " + line) }
            return
        }
        let own = Self.commands.filter { $0.helpTopic == nil }
        if options.json {
            emit(
                Self.result(
                    "help",
                    [
                        (
                            "commands",
                            .array(
                                own.map { command in
                                    .object([
                                        ("name", .string(command.name)), ("usage", .array(command.help.usage.map(JSONText.string))),
                                        ("summary", .string(command.help.summary)),
                                    ])
                                })
                        )
                    ]))
            return
        }
        let width = own.map(\.name.count).max() ?? 0
        emit("commands:")
        for command in Self.commands {
            emit("  " + command.name + String(repeating: " ", count: max(0, width - command.name.count)) + "  " + command.help.summary)
        }
        emit("'help COMMAND' explains one, with an example.")
        emit("folio --json writes each command's result as one JSON object on one line (its \"command\" first),")
        emit("and errors on stderr as JSON objects with level, kind, message, line and column;")
        emit("with --yes, previews of destructive commands go to stderr: stdout holds results only.")
        emit("Errors name the column, show the line with ^ under it, and suggest close names for an unknown one.")
        emit("A line ending in \\, or with a quote or bracket still open, continues on the next (...> ).")
        emit("A command holds at most \(Self.maximumLineLength) bytes; a longer one is refused whole.")
        emit("Ctrl-C stops a running command (a long list, changes, a delete's preview): it changes nothing.")
    }
}
