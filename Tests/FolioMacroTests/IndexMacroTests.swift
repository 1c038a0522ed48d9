import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `#Index` expands to inside a model class, and how it reports misuse.
@Suite struct IndexMacroTests {
    @Test("#Index becomes the class's key-path indexes, single and compound, checked by the compiler against the class")
    func indexes() {
        assertExpansion(
            #"""
            final class Animal {
                #Index<Animal>([\.name], [\.age, \.weight])
                var name: String
            }
            """#,
            expandedSource: #"""
                final class Animal {
                    static var _$indexes: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Animal>]] = [[\.name], [\.age, \.weight]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                    var name: String
                }
                """#,
            macros: ["Index": folioMacros["Index"]!]
        )
    }

    @Test("In a public class the indexes are public, to witness PersistentModel's requirement")
    func publicClass() {
        assertExpansion(
            #"""
            public final class Animal {
                #Index<Animal>([\.name])
            }
            """#,
            expandedSource: #"""
                public final class Animal {
                    public static var _$indexes: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Animal>]] = [[\.name]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                }
                """#,
            macros: ["Index": folioMacros["Index"]!]
        )
    }

    @Test("Without the model class the key paths have no root: a fix-it names the enclosing class")
    func missingModel() {
        assertExpansion(
            #"""
            final class Animal {
                #Index([\.name])
            }
            """#,
            expandedSource: #"""
                final class Animal {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'#Index' needs the model class its key paths start from: '#Index<Animal>(...)'",
                    line: 2, column: 6, fixIts: [FixItSpec(message: "Insert '<Animal>'")])
            ],
            macros: ["Index": folioMacros["Index"]!],
            applyFixIts: ["Insert '<Animal>'"],
            fixedSource: #"""
                final class Animal {
                    #Index<Animal>([\.name])
                }
                """#
        )
    }

    @Test("An empty index is reported, with a fix-it that removes it")
    func emptyIndex() {
        assertExpansion(
            #"""
            final class Animal {
                #Index<Animal>([\.name], [])
            }
            """#,
            expandedSource: #"""
                final class Animal {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "an index needs at least one key path", line: 2, column: 30,
                    fixIts: [FixItSpec(message: "Remove the empty index")])
            ],
            macros: ["Index": folioMacros["Index"]!],
            applyFixIts: ["Remove the empty index"],
            fixedSource: #"""
                final class Animal {
                    #Index<Animal>([\.name])
                }
                """#
        )
    }

    @Test("#Index with no indexes, or outside a class, is reported")
    func misplaced() {
        assertExpansion(
            #"""
            final class Animal {
                #Index<Animal>()
            }
            struct Plan {
                #Index<Plan>([\.code])
            }
            """#,
            expandedSource: #"""
                final class Animal {
                }
                struct Plan {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'#Index' needs at least one index: an array of key paths, such as '[\\.name]'",
                    line: 2, column: 5),
                DiagnosticSpec(
                    message: "'#Index' declares a model's indexes; write it inside the '@Model' class",
                    line: 5, column: 5),
            ],
            macros: ["Index": folioMacros["Index"]!]
        )
    }

    @Test("#Index beside #Unique in a model class: each expands to its own witness")
    func besideUnique() {
        assertExpansion(
            #"""
            final class Visit {
                #Unique<Visit>([\.code])
                #Index<Visit>([\.day])
            }
            """#,
            expandedSource: #"""
                final class Visit {
                    static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Visit>]] = [[\.code]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                    static var _$indexes: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Visit>]] = [[\.day]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                }
                """#,
            macros: ["Unique": folioMacros["Unique"]!, "Index": folioMacros["Index"]!]
        )
    }
}
