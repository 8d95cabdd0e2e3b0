// The Inmanta `.cf` language: lexer and parser (spec/language.md sections 1 and 2).
//
// The C++ parser is generated from this file at build time (grammar/CMakeLists.txt); the
// generated code is never committed. The grammar carries no C++: shape checks the reference
// makes while parsing (capitalisation, hyphens, keywords as names, error productions) are done
// by the AST builder (compiler/parse/builder.cpp), which reads the labelled alternatives below.
//
// Alternatives are ordered where the input is ambiguous because newlines are not significant:
// ANTLR resolves an ambiguity in favour of the first alternative, which reproduces the
// reference's LALR "shift" preference (spec 2.3: `y = l` NEWLINE `["a"]` is one map lookup).
grammar Inmanta;

// LOOKUP_BRACK is a `[` that directly follows a variable reference (or a map lookup's `]`). The
// lexer driver (compiler/parse/parser.cpp) retypes such brackets: the reference's LALR parser
// always shifts them as a lookup, so `x` NEWLINE `[1, 2]` is a syntax error at `,`, never a
// variable followed by a list.
//
// NOT_IN is a `not` that directly follows a token ending an expression: the reference shifts it
// as the start of `not in` (its precedence rule "prefer one statement `x = 1 not in []`"), so
// `x = 1` NEWLINE `not b` is a syntax error at `b`, never a second statement.
tokens { LOOKUP_BRACK, NOT_IN }

// ------------------------------------------------------------------ file and statements

file
    : doc=MLS? topStatement* EOF
    ;

topStatement
    : entityDef
    | implementDef
    | implementationDef
    | relationDef
    | typedefDef
    | indexDef
    | importDef
    | statement
    ;

statement
    : assignment
    | forStmt
    | ifStmt
    | expression
    ;

assignment
    : varRef op=(ASSIGN | PEQ) expression
    ;

forStmt
    : FOR var=ID IN expression COLON block END
    ;

ifStmt
    : IF expression COLON block elifClause* elseClause? END
    ;

elifClause
    : ELIF expression COLON block
    ;

elseClause
    : ELSE COLON block
    ;

block
    : statement*
    ;

// ------------------------------------------------------------------ definitions

importDef
    : IMPORT nsRef (AS alias=ID)?
    ;

// `entity lower:` and lower-case parents are error productions of the reference.
entityDef
    : ENTITY name=(CID | ID) (EXTENDS parentRef (COMMA parentRef)*)? COLON doc=MLS? attributeDef* END
    ;

parentRef
    : classRef
    | varRef
    ;

attributeDef
    : typeRef name=(ID | CID) (ASSIGN (constant | constantList | UNDEF))?           # TypedAttribute
    | DICT nullable=QMARK? name=(ID | CID) (ASSIGN (mapLiteral | KW_NULL))?            # DictAttribute
    ;

typeRef
    : nsRef (multi=(LBRACK | LOOKUP_BRACK) RBRACK)? (nullable=QMARK)?
    ;

constantList
    : LBRACK (constant (COMMA constant)* COMMA?)? RBRACK
    ;

implementationDef
    : IMPLEMENTATION name=ID FOR classRef COLON doc=MLS? block END
    ;

implementDef
    : IMPLEMENT classRef USING implementItem (COMMA implementItem)* (WHEN expression)? doc=MLS?
    ;

implementItem
    : nsRef
    | PARENTS
    ;

relationDef
    : left=classRef DOT leftName=ID leftMult=multiplicity
      (REL | annotation+=expression (COMMA annotation+=expression)*)
      right=classRef (DOT rightName=ID rightMult=multiplicity)? doc=MLS?
    ;

multiplicity
    : bracket lower=INT RBRACK
    | bracket lower=INT COLON RBRACK
    | bracket lower=INT COLON upper=INT RBRACK
    | bracket COLON upper=INT RBRACK
    ;

bracket
    : LBRACK
    | LOOKUP_BRACK
    ;

// `typedef Name as Entity(...)` is an error production of the reference.
typedefDef
    : TYPEDEF name=ID AS nsRef (MATCHING expression | REGEX) doc=MLS?              # ConstraintTypedef
    | TYPEDEF name=CID AS classRef LPAREN kwargList? RPAREN doc=MLS?               # DefaultConstructorTypedef
    ;

indexDef
    : INDEX classRef LPAREN ID (COMMA ID)* RPAREN
    ;

// ------------------------------------------------------------------ expressions
// Precedence from high to low (spec 2.2): in / not in, prefix not, **, * / %, + -,
// comparisons, and, or, the conditional expression.

expression
    : expression NOT_IN? IN expression                                # InExpr
    | NOT expression                                                  # NotExpr
    | expression op=DOUBLE_STAR expression                            # BinaryExpr
    | expression op=(STAR | DIVISION_OP | PERCENT) expression         # BinaryExpr
    | expression op=(PLUS_OP | MINUS_OP) expression                   # BinaryExpr
    | expression op=CMP_OP expression                                 # BinaryExpr
    | expression op=AND expression                                    # BinaryExpr
    | expression op=OR expression                                     # BinaryExpr
    | <assoc=right> expression QMARK expression COLON expression      # ConditionalExpr
    | primary                                                         # PrimaryExpr
    ;

primary
    : constant                                                        # ConstantExpr
    | LPAREN expression RPAREN                                        # ParenExpr
    | LBRACK expression listFor+ listGuard* RBRACK                    # ListComprehensionExpr
    | LBRACK (expression (COMMA expression)* COMMA?)? RBRACK          # ListExpr
    | mapLiteral                                                      # MapExpr
    | classRef LPAREN kwargList? RPAREN                               # ConstructorExpr
    | classRef LBRACK kwargList? RBRACK                               # IndexLookupExpr
    | varRef DOT ID LPAREN argList? RPAREN                            # DottedCallExpr
    | nsRef LPAREN argList? RPAREN                                    # CallExpr
    | varRef DOT ID LOOKUP_BRACK kwargList? RBRACK                    # ShortIndexLookupExpr
    | varRef (LOOKUP_BRACK expression RBRACK)+ (IS DEFINED)?          # MapLookupExpr
    | varRef DOT ID IS DEFINED                                        # IsDefinedAttrExpr
    | ID IS DEFINED                                                   # IsDefinedVarExpr
    | varRef                                                          # VarRefExpr
    ;

listFor
    : FOR ID IN expression
    ;

listGuard
    : IF expression
    ;

mapLiteral
    : LBRACE (dictEntry (COMMA dictEntry)* COMMA?)? RBRACE
    ;

dictEntry
    : key=(STRING | RSTRING) COLON expression
    ;

argList
    : arg (COMMA arg)* COMMA?
    ;

arg
    : ID ASSIGN expression                                            # KeywordArg
    | DOUBLE_STAR expression                                          # WrappedKwargsArg
    | expression                                                      # PositionalArg
    ;

kwargList
    : kwarg (COMMA kwarg)* COMMA?
    ;

kwarg
    : ID ASSIGN expression                                            # KeywordKwarg
    | DOUBLE_STAR expression                                          # WrappedKwargsKwarg
    ;

constant
    : INT | FLOAT | KW_TRUE | KW_FALSE | KW_NULL | STRING | RSTRING | FSTRING | MLS | REGEX
    ;

nsRef
    : ID (SEP ID)*
    ;

varRef
    : nsRef (DOT ID)*
    ;

// `a.B` where a class is expected is the reference's InvalidNamespaceAccess error production.
// The namespace prefix is spelled out rather than reusing nsRef, so that `:: CID` never follows
// an nsRef: ANTLR's prediction then fails on the same token as the reference's parser.
classRef
    : (ID SEP)* CID
    | varRef DOT CID
    ;

// ------------------------------------------------------------------ lexer
// The reference lexer (PLY) takes the first rule that matches; ANTLR takes the longest match
// and then the first rule. With the rules below both give the same tokens (spec 1.2, 1.11).

TYPEDEF : 'typedef' ;
AS : 'as' ;
ENTITY : 'entity' ;
EXTENDS : 'extends' ;
END : 'end' ;
IN : 'in' ;
IMPLEMENTATION : 'implementation' ;
FOR : 'for' ;
INDEX : 'index' ;
IMPLEMENT : 'implement' ;
USING : 'using' ;
WHEN : 'when' ;
AND : 'and' ;
OR : 'or' ;
NOT : 'not' ;
KW_TRUE : 'true' ;
KW_FALSE : 'false' ;
IMPORT : 'import' ;
IS : 'is' ;
DEFINED : 'defined' ;
DICT : 'dict' ;
KW_NULL : 'null' ;
UNDEF : 'undef' ;
PARENTS : 'parents' ;
IF : 'if' ;
ELSE : 'else' ;
ELIF : 'elif' ;

// `matching`, white space (newlines included), then a non-empty /.../ body: one token.
REGEX : 'matching' [ \t\n\r\f\u000B\u001C-\u001F]+ '/' ( ~[/\\\n] | '\\' ~[\n] )+ '/' ;
MATCHING : 'matching' ;

FSTRING : 'f"' ( ~["\\\n] | '\\' ~[\n] )* '"' | 'f\'' ( ~['\\\n] | '\\' ~[\n] )* '\'' ;
RSTRING : 'r"' ( ~["\\\n] | '\\' ~[\n] )* '"' | 'r\'' ( ~['\\\n] | '\\' ~[\n] )* '\'' ;

CID : [A-Z] [a-zA-Z_0-9-]* ;
ID : [a-zA-Z_] [a-zA-Z_0-9-]* ;

SEP : '::' ;
REL : '--' | '->' | '<-' ;
CMP_OP : '!=' | '==' | '>=' | '<=' | '<' | '>' ;
PEQ : '+=' ;

COMMENT : '#' ~[\n]* '\n' -> skip ;

// Opening run of 3 to 5 quotes, a body without three quotes in a row that does not end in a
// quote, a closing run of 3 to 5 quotes: the same extent as the reference's
// "{3,5}([\s\S]*?)"{3,5} (spec 1.7).
MLS : '"""' '"'? '"'? MLS_ITEM* '"""' '"'? '"'? ;
fragment MLS_ITEM : ~'"' | '"' ~'"' | '""' ~'"' ;

FLOAT : '-'? [0-9]* '.' [0-9]+ ;
INT : '-'? [0-9]+ ;

STRING : '"' ( ~["\\\n] | '\\' ~[\n] )* '"' | '\'' ( ~['\\\n] | '\\' ~[\n] )* '\'' ;

PLUS_OP : '+' ;
MINUS_OP : '-' ;
DIVISION_OP : '/' ;
DOUBLE_STAR : '**' ;

COLON : ':' ;
LBRACK : '[' ;
RBRACK : ']' ;
LPAREN : '(' ;
RPAREN : ')' ;
ASSIGN : '=' ;
COMMA : ',' ;
DOT : '.' ;
LBRACE : '{' ;
RBRACE : '}' ;
QMARK : '?' ;
STAR : '*' ;
PERCENT : '%' ;

WS : [ \t]+ -> skip ;
NEWLINE : '\n'+ -> skip ;

// Any other character: the parser rejects it and the diagnostic says "Illegal character".
// Produced as a token (not a lexer error) so that an earlier syntax error is reported first,
// as the reference's lazy lexer does.
ERRCHAR : . ;
