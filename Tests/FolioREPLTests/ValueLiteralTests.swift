import Folio
import Foundation
import Testing
@testable import FolioREPL

@Suite struct ValueLiteralTests {
    func parse(_ text: String, _ type: ValueType) throws(CommandError) -> Value {
        try ValueLiteral.parse(text, as: type, for: "Dog.x")
    }

    @Test("strings: double or single quotes with escapes, or bare words; empty is the empty string")
    func strings() throws {
        #expect(try parse("\"Tree Frog\"", .string) == .string("Tree Frog"))
        #expect(try parse("'it\\'s'", .string) == .string("it's"))
        #expect(try parse("\"a\\\"b\\\\c\\nd\\te\"", .string) == .string("a\"b\\c\nd\te"))
        #expect(try parse("\"\\u00e9t\\u00e9\"", .string) == .string("été"))
        #expect(try parse("Newt", .string) == .string("Newt"))
        #expect(try parse("a,b=c:d", .string) == .string("a,b=c:d"))
        #expect(try parse("it's", .string) == .string("it's"))
        #expect(try parse("", .string) == .string(""))
        #expect(try parse("\"null\"", .string) == .string("null"))
        #expect(try parse("null", .string) == .null)
    }

    @Test("numbers, booleans, dates, UUIDs, URLs, decimals and data by the attribute's type")
    func scalars() throws {
        #expect(try parse("42", .int) == .int(42))
        #expect(try parse("-3", .int8) == .int(-3))
        #expect(try parse("7", .uint16) == .uint(7))
        #expect(try parse("2.5", .double) == .double(2.5))
        #expect(try parse("0.1", .float) == .float(0.1))
        #expect(try parse("true", .bool) == .bool(true))
        #expect(try parse("false", .bool) == .bool(false))
        #expect(try parse("2024-03-06", .date) == Value(text: "2024-03-06T00:00:00Z", as: .date))
        #expect(try parse("2024-03-06T05:06:07Z", .date) == Value(text: "2024-03-06T05:06:07Z", as: .date))
        #expect(try parse("'2024-03-06'", .date) == Value(text: "2024-03-06", as: .date))
        #expect(try parse("12.50", .decimal) == .decimal(Decimal(string: "12.5") ?? 0))
        #expect(try parse("https://example.com/a?b=c,d", .url) == .url(try #require(URL(string: "https://example.com/a?b=c,d"))))
        #expect(
            try parse("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid)
                == .uuid(try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))))
        #expect(try parse("aGk=", .data) == .data(Data("hi".utf8)))
    }

    @Test("arrays and sets as [a, b] or JSON; dictionaries as {k: v} or JSON; nesting")
    func collections() throws {
        #expect(try parse("[a, b]", .array(.string)) == .array([.string("a"), .string("b")]))
        #expect(try parse("[\"a\",\"b\"]", .array(.string)) == .array([.string("a"), .string("b")]))
        #expect(try parse("[New York, 'Bo, ston']", .set(.string)) == .set([.string("New York"), .string("Bo, ston")]))
        #expect(try parse("[]", .set(.string)) == .set([]))
        #expect(try parse("[ 1 , 2,3 ]", .array(.int)) == .array([.int(1), .int(2), .int(3)]))
        #expect(
            try parse("[2024-03-06, 2024-03-07T01:02:03Z]", .array(.date))
                == .array([try #require(Value(text: "2024-03-06", as: .date)), try #require(Value(text: "2024-03-07T01:02:03Z", as: .date))]))
        #expect(
            try parse("{Paris: Jardin du Luxembourg, 'New York': Central Park}", .dictionary(.string))
                == .dictionary(["Paris": .string("Jardin du Luxembourg"), "New York": .string("Central Park")]))
        #expect(try parse("{\"a\":\"b\"}", .dictionary(.string)) == .dictionary(["a": .string("b")]))
        #expect(try parse("{}", .dictionary(.int)) == .dictionary([:]))
        #expect(
            try parse("{a: [1, 2], b: []}", .dictionary(.array(.int)))
                == .dictionary(["a": .array([.int(1), .int(2)]), "b": .array([])]))
        #expect(try parse("'[\"x\",\"y\"]'", .set(.string)) == .set([.string("x"), .string("y")]))
    }

    @Test("composite values infer numbers, booleans and null; any-values infer or take a type tag")
    func compositeAndAny() throws {
        #expect(
            try parse("{name: Rex, age: 3, good: true, toy: null, tags: [a, 2.5]}", .codable)
                == .dictionary([
                    "name": .string("Rex"), "age": .int(3), "good": .bool(true), "toy": .null,
                    "tags": .array([.string("a"), .double(2.5)]),
                ]))
        #expect(try parse("3", .any) == .int(3))
        #expect(try parse("\"3\"", .any) == .string("3"))
        #expect(try parse("int:3", .any) == .int(3))
        #expect(try parse("string:int:3", .any) == .string("int:3"))
        #expect(try parse("2.5", .any) == .double(2.5))
        #expect(try parse("true", .any) == .bool(true))
        #expect(try parse("Wolfie", .any) == .string("Wolfie"))
        #expect(try parse("2024-03-06", .any) == Value(text: "2024-03-06", as: .date))
        #expect(try parse("null", .any) == .null)
    }

    @Test("a bare any-value's type ends at the first colon scalar, even when a combining mark follows it")
    func anyValueWithCombiningMark() throws {
        #expect(try parse("string:\u{301}x", .any) == .string("\u{301}x"))
    }

    @Test("errors name the offending token's column")
    func errors() {
        func error(_ text: String, _ type: ValueType) -> CommandError? {
            do { _ = try parse(text, type); return nil } catch { return error }
        }
        #expect(error("abc", .int) == CommandError("'abc' is not a valid int for Dog.x", column: 1))
        #expect(error("300", .int8) == CommandError("'300' is not a valid int8 for Dog.x", column: 1))
        #expect(error("-1", .uint) == CommandError("'-1' is not a valid uint for Dog.x", column: 1))
        #expect(error("yes", .bool) == CommandError("'yes' is not a valid bool for Dog.x", column: 1))
        #expect(error("2024-02-30", .date) == CommandError("'2024-02-30' is not a valid date for Dog.x", column: 1))
        #expect(error("", .int) == CommandError("missing value for Dog.x (int)", column: 1))
        #expect(error("[1, x]", .array(.int)) == CommandError("'x' is not a valid int for Dog.x", column: 5))
        #expect(error("[1, 2", .array(.int)) == CommandError("'[' is not closed", column: 1))
        #expect(error("[1 2]", .array(.int)) == CommandError("'1 2' is not a valid int for Dog.x", column: 2))
        #expect(error("[1, ]", .array(.int)) == CommandError("expected a value for Dog.x, found ']'", column: 5))
        #expect(error("[a, a]", .set(.string)) == CommandError("\"a\" is in the set twice", column: 5))
        #expect(error("[null]", .array(.int)) == CommandError("null cannot be an element of Dog.x", column: 2))
        #expect(
            error("x", .set(.string))
                == CommandError(
                    "'x' is not a valid set(string) for Dog.x; write [a, b] or {key: value}", column: 1))
        #expect(error("[a]", .int) == CommandError("Dog.x holds one int, not a list", column: 1))
        #expect(error("{a: 1}", .array(.int)) == CommandError("Dog.x holds an array(int), not a dictionary", column: 1))
        #expect(error("{a 1}", .dictionary(.int)) == CommandError("expected ':' after key 'a 1', found '}'", column: 5))
        #expect(error("{a: 1, a: 2}", .dictionary(.int)) == CommandError("key 'a' appears twice", column: 8))
        #expect(error("{a: 1", .dictionary(.int)) == CommandError("'{' is not closed", column: 1))
        #expect(error("\"abc", .string) == CommandError("unterminated string", column: 1))
        #expect(error("\"a\"b", .string) == CommandError("unexpected 'b' after the value for Dog.x", column: 4))
        #expect(error("\"a\\qb\"", .string) == CommandError("unknown escape '\\q'", column: 3))
        #expect(error("int:x", .any) == CommandError("'x' is not a valid int for Dog.x", column: 1))
        #expect(error("[1]", .any) == CommandError("Dog.x holds one value of any scalar type, not a list", column: 1))
    }

    @Test("lists and dictionaries nest up to 64 deep; deeper, even 100,000 deep, is an error at the 65th bracket, never a stack overflow")
    func nestingIsBounded() throws {
        func error(_ text: String, _ type: ValueType) -> CommandError? {
            do { _ = try parse(text, type); return nil } catch { return error }
        }
        let limit = ValueLiteral.maximumNesting
        #expect(limit == 64)
        var inner = Value.array([])
        for _ in 1..<limit { inner = .array([inner]) }
        #expect(try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit), .codable) == inner)
        for depth in [limit + 1, 100_000] {
            let lists = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            #expect(error(lists, .codable) == CommandError("Dog.x nests lists and dictionaries more than 64 deep", column: limit + 1))
            let dictionaries = String(repeating: "{a: ", count: depth) + "1" + String(repeating: "}", count: depth)
            #expect(error(dictionaries, .codable)?.column == 4 * limit + 1)
        }
    }

    @Test("a tag another language names a type (integer:3) suggests Folio's name; quoted, it is a string")
    func typeAliases() throws {
        func error(_ text: String) -> CommandError? {
            do { _ = try parse(text, .any); return nil } catch { return error }
        }
        #expect(
            error("integer:3")
                == CommandError(
                    "'integer' is not a type; did you mean 'int'? (write int:…, or quote the value for a string)",
                    column: 1))
        #expect(error("boolean:true")?.message.contains("did you mean 'bool'?") == true)
        #expect(try parse("\"integer:3\"", .any) == .string("integer:3"))
        #expect(try parse("text:hello", .any) == .string("text:hello"))
        #expect(try parse("integer:three", .any) == .string("integer:three"))
        #expect(ValueType.suggestion(for: "integer") == "int")
        #expect(ValueType.suggestion(for: "timestamp") == "date")
        #expect(ValueType.suggestion(for: "strng") == "string")
        #expect(ValueType.suggestion(for: "int") == nil)
        #expect(ValueType.suggestion(for: "zebra") == nil)
    }
}
