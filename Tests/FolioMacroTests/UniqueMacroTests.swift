import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `#Unique` expands to inside a model class, and how it reports misuse.
@Suite struct UniqueMacroTests {
    @Test("#Unique becomes the class's key-path constraints, checked by the compiler against the class")
    func constraints() {
        assertExpansion(
            #"""
            final class Visit {
                #Unique<Visit>([\.city, \.day], [\.code])
                var city: String
            }
            """#,
            expandedSource: #"""
                final class Visit {
                    static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Visit>]] = [[\.city, \.day], [\.code]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                    var city: String
                }
                """#,
            macros: ["Unique": folioMacros["Unique"]!]
        )
    }

    @Test("In a public class the constraints are public, to witness PersistentModel's requirement")
    func publicClass() {
        assertExpansion(
            #"""
            public final class Visit {
                #Unique<Visit>([\.code])
            }
            """#,
            expandedSource: #"""
                public final class Visit {
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        let lists: [[PartialKeyPath<Visit>]] = [[\.code]]
                        return lists.map {
                            $0.map {
                                $0 as AnyKeyPath
                            }
                        }
                    }
                }
                """#,
            macros: ["Unique": folioMacros["Unique"]!]
        )
    }

    @Test("Without the model class the key paths have no root: a fix-it names the enclosing class")
    func missingModel() {
        assertExpansion(
            #"""
            final class Visit {
                #Unique([\.code])
            }
            """#,
            expandedSource: #"""
                final class Visit {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'#Unique' needs the model class its key paths start from: '#Unique<Visit>(...)'",
                    line: 2, column: 6, fixIts: [FixItSpec(message: "Insert '<Visit>'")])
            ],
            macros: ["Unique": folioMacros["Unique"]!],
            applyFixIts: ["Insert '<Visit>'"],
            fixedSource: #"""
                final class Visit {
                    #Unique<Visit>([\.code])
                }
                """#
        )
    }

    @Test("An empty constraint is reported, with a fix-it that removes it")
    func emptyConstraint() {
        assertExpansion(
            #"""
            final class Visit {
                #Unique<Visit>([\.code], [])
            }
            """#,
            expandedSource: #"""
                final class Visit {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "a uniqueness constraint needs at least one key path", line: 2, column: 30,
                    fixIts: [FixItSpec(message: "Remove the empty constraint")])
            ],
            macros: ["Unique": folioMacros["Unique"]!],
            applyFixIts: ["Remove the empty constraint"],
            fixedSource: #"""
                final class Visit {
                    #Unique<Visit>([\.code])
                }
                """#
        )
    }

    @Test("#Unique with no constraints, or outside a class, is reported")
    func misplaced() {
        assertExpansion(
            #"""
            final class Visit {
                #Unique<Visit>()
            }
            struct Plan {
                #Unique<Plan>([\.code])
            }
            """#,
            expandedSource: #"""
                final class Visit {
                }
                struct Plan {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'#Unique' needs at least one constraint: an array of key paths, such as '[\\.name]'",
                    line: 2, column: 5),
                DiagnosticSpec(
                    message: "'#Unique' declares a model's uniqueness constraints; write it inside the '@Model' class",
                    line: 5, column: 5),
            ],
            macros: ["Unique": folioMacros["Unique"]!]
        )
    }
}
