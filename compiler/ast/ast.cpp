#include "compiler/ast/ast.h"

#include <cstdio>

namespace inmanta::compiler::ast {

uint32_t Name::endCol() const { return loc.col + static_cast<uint32_t>(codePointCount(text())); }

const char* kindName(Kind kind) {
  switch (kind) {
    case Kind::Literal: return "Literal";
    case Kind::StringFormat: return "StringFormat";
    case Kind::FString: return "FString";
    case Kind::Regex: return "Regex";
    case Kind::VarRef: return "VarRef";
    case Kind::AttrRef: return "AttrRef";
    case Kind::MapLookup: return "MapLookup";
    case Kind::IsDefined: return "IsDefined";
    case Kind::Binary: return "Binary";
    case Kind::Not: return "Not";
    case Kind::Conditional: return "Conditional";
    case Kind::Call: return "Call";
    case Kind::Constructor: return "Constructor";
    case Kind::IndexLookup: return "IndexLookup";
    case Kind::ShortIndexLookup: return "ShortIndexLookup";
    case Kind::ListLit: return "ListLit";
    case Kind::ListComp: return "ListComp";
    case Kind::DictLit: return "DictLit";
    case Kind::ExprStmt: return "ExprStmt";
    case Kind::Assign: return "Assign";
    case Kind::For: return "For";
    case Kind::If: return "If";
    case Kind::Import: return "Import";
    case Kind::Entity: return "Entity";
    case Kind::Implementation: return "Implementation";
    case Kind::Implement: return "Implement";
    case Kind::Relation: return "Relation";
    case Kind::Typedef: return "Typedef";
    case Kind::Index: return "Index";
  }
  return "?";
}

const char* binaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::And: return "and";
    case BinaryOp::Or: return "or";
    case BinaryOp::In: return "in";
  }
  return "?";
}

namespace {

thread_local bool gDetailed = false;  // dump(..., true): locations and docs too

void dumpLoc(std::string& out, const SourceLocation& loc) {
  out += '@';
  out += std::to_string(loc.file);
  out += ':';
  out += std::to_string(loc.line);
  out += ':';
  out += std::to_string(loc.col);
}

void dumpName(std::string& out, const Name& n) {
  out += n.text();
  if (!gDetailed) return;
  dumpLoc(out, n.loc);
  out += '-';
  out += std::to_string(n.endCol());
}

void quote(std::string& out, std::string_view s);

void dumpDoc(std::string& out, const std::string& doc) {
  if (!gDetailed || doc.empty()) return;
  out += " doc=";
  quote(out, doc);
}

void quote(std::string& out, std::string_view s) {
  out += '\'';
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else out += c;
  }
  out += '\'';
}

void dumpExpr(std::string& out, const Expr* e);
void dumpStmt(std::string& out, const Stmt* s);

void dumpArgs(std::string& out, const Arguments& a) {
  for (const KwArg& kw : a.kwargs) {
    out += ' ';
    dumpName(out, kw.name);
    out += '=';
    dumpExpr(out, kw.value);
  }
  for (const Expr* w : a.wrapped) {
    out += " **";
    dumpExpr(out, w);
  }
}

void dumpBlock(std::string& out, const char* tag, const Block& b) {
  out += " (";
  out += tag;
  for (const Stmt* s : b) {
    out += ' ';
    dumpStmt(out, s);
  }
  out += ')';
}

void dumpExpr(std::string& out, const Expr* e) {
  if (e == nullptr) {
    out += "<null>";
    return;
  }
  if (gDetailed) dumpLoc(out, e->loc());
  switch (e->kind) {
    case Kind::Literal: {
      const runtime::Value& v = static_cast<const Literal*>(e)->value();
      if (v.isNull()) out += "null";
      else if (v.isBool()) out += v.asBool() ? "true" : "false";
      else if (v.isInt()) out += std::to_string(v.asInt());
      else if (v.isFloat()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v.asFloat());
        out += buf;
        out += 'f';
      } else quote(out, v.asString());
      return;
    }
    case Kind::StringFormat: {
      auto* s = static_cast<const StringFormat*>(e);
      out += "(fmt ";
      quote(out, s->text);
      for (const auto& p : s->parts) {
        out += ' ';
        if (gDetailed) quote(out, p.match);
        dumpExpr(out, p.ref);
      }
      out += ')';
      return;
    }
    case Kind::FString: {
      auto* s = static_cast<const FString*>(e);
      out += "(f ";
      quote(out, s->format);
      for (const auto& r : s->refs) {
        out += ' ';
        if (gDetailed) quote(out, r.key);
        dumpExpr(out, r.ref);
      }
      out += ')';
      return;
    }
    case Kind::Regex:
      out += "(regex ";
      quote(out, static_cast<const Regex*>(e)->pattern);
      if (gDetailed) dumpLoc(out, static_cast<const Regex*>(e)->patternLoc);
      out += ')';
      return;
    case Kind::VarRef: dumpName(out, static_cast<const VarRef*>(e)->name()); return;
    case Kind::AttrRef: {
      auto* a = static_cast<const AttrRef*>(e);
      dumpExpr(out, a->object);
      out += '.';
      dumpName(out, a->attribute);
      return;
    }
    case Kind::MapLookup: {
      auto* m = static_cast<const MapLookup*>(e);
      out += "(lookup ";
      dumpExpr(out, m->map);
      out += ' ';
      dumpExpr(out, m->key);
      out += ')';
      return;
    }
    case Kind::IsDefined: {
      auto* d = static_cast<const IsDefined*>(e);
      out += "(defined ";
      if (d->object) {
        dumpExpr(out, d->object);
        out += '.';
      }
      dumpName(out, d->attribute);
      out += ')';
      return;
    }
    case Kind::Binary: {
      auto* b = static_cast<const Binary*>(e);
      out += '(';
      out += binaryOpText(b->op);
      out += ' ';
      dumpExpr(out, b->lhs);
      out += ' ';
      dumpExpr(out, b->rhs);
      out += ')';
      return;
    }
    case Kind::Not:
      out += "(not ";
      dumpExpr(out, static_cast<const Not*>(e)->operand);
      out += ')';
      return;
    case Kind::Conditional: {
      auto* c = static_cast<const Conditional*>(e);
      out += "(? ";
      dumpExpr(out, c->condition);
      out += ' ';
      dumpExpr(out, c->whenTrue);
      out += ' ';
      dumpExpr(out, c->whenFalse);
      out += ')';
      return;
    }
    case Kind::Call: {
      auto* c = static_cast<const Call*>(e);
      out += "(call ";
      dumpName(out, c->function);
      for (const Expr* a : c->args) {
        out += ' ';
        dumpExpr(out, a);
      }
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::Constructor: {
      auto* c = static_cast<const Constructor*>(e);
      out += "(new ";
      dumpName(out, c->type);
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::IndexLookup: {
      auto* c = static_cast<const IndexLookup*>(e);
      out += "(index ";
      dumpName(out, c->type);
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::ShortIndexLookup: {
      auto* c = static_cast<const ShortIndexLookup*>(e);
      out += "(index ";
      dumpExpr(out, c->object);
      out += '.';
      dumpName(out, c->relation);
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::ListLit: {
      out += "[";
      bool first = true;
      for (const Expr* x : static_cast<const ListLit*>(e)->elements) {
        if (!first) out += ' ';
        first = false;
        dumpExpr(out, x);
      }
      out += "]";
      return;
    }
    case Kind::ListComp: {
      auto* c = static_cast<const ListComp*>(e);
      out += "(comp ";
      dumpExpr(out, c->value);
      out += " for ";
      dumpName(out, c->variable);
      out += " in ";
      dumpExpr(out, c->iterable);
      if (c->guard) {
        out += " if ";
        dumpExpr(out, c->guard);
      }
      out += ')';
      return;
    }
    case Kind::DictLit: {
      out += "{";
      bool first = true;
      for (const auto& [k, v] : static_cast<const DictLit*>(e)->entries) {
        if (!first) out += ' ';
        first = false;
        quote(out, k);
        out += ':';
        dumpExpr(out, v);
      }
      out += "}";
      return;
    }
    INMANTA_AST_STATEMENT_CASES:
      out += "<stmt>";
      return;
  }
}

void dumpMult(std::string& out, const Multiplicity& m) {
  out += '[' + std::to_string(m.lower) + ':';
  if (m.upper) out += std::to_string(*m.upper);
  out += ']';
}

void dumpStmt(std::string& out, const Stmt* s) {
  if (gDetailed && s->kind != Kind::ExprStmt) dumpLoc(out, s->loc());
  switch (s->kind) {
    case Kind::ExprStmt: dumpExpr(out, static_cast<const ExprStmt*>(s)->expr); return;
    case Kind::Assign: {
      auto* a = static_cast<const Assign*>(s);
      out += a->listOnly ? "(+= " : "(= ";
      dumpExpr(out, a->target);
      out += ' ';
      dumpExpr(out, a->value);
      out += ')';
      return;
    }
    case Kind::For: {
      auto* f = static_cast<const For*>(s);
      out += "(for ";
      dumpName(out, f->variable);
      out += ' ';
      dumpExpr(out, f->iterable);
      dumpBlock(out, "do", f->body);
      out += ')';
      return;
    }
    case Kind::If: {
      auto* i = static_cast<const If*>(s);
      out += "(if ";
      dumpExpr(out, i->condition);
      dumpBlock(out, "then", i->thenBlock);
      dumpBlock(out, "else", i->elseBlock);
      out += ')';
      return;
    }
    case Kind::Import: {
      auto* i = static_cast<const Import*>(s);
      out += "(import ";
      dumpName(out, i->module);
      out += " as ";
      dumpName(out, i->alias);
      out += ')';
      return;
    }
    case Kind::Entity: {
      auto* en = static_cast<const Entity*>(s);
      out += "(entity ";
      dumpName(out, en->name);
      for (const Name& p : en->parents) {
        out += " <";
        dumpName(out, p);
      }
      for (const Attribute& a : en->attributes) {
        out += " (";
        dumpName(out, a.type.base);
        if (a.type.multi) out += "[]";
        if (a.type.nullable) out += '?';
        if (gDetailed && a.type.isDict) out += "{dict}";
        out += ' ';
        dumpName(out, a.name);
        if (a.defaultValue) {
          out += " = ";
          dumpExpr(out, a.defaultValue);
        } else if (a.removeDefault) {
          out += " undef";
        }
        out += ')';
      }
      dumpDoc(out, en->doc);
      out += ')';
      return;
    }
    case Kind::Implementation: {
      auto* im = static_cast<const Implementation*>(s);
      out += "(implementation ";
      dumpName(out, im->name);
      out += " for ";
      dumpName(out, im->entity);
      dumpBlock(out, "do", im->body);
      dumpDoc(out, im->doc);
      out += ')';
      return;
    }
    case Kind::Implement: {
      auto* im = static_cast<const Implement*>(s);
      out += "(implement ";
      dumpName(out, im->entity);
      out += " using";
      for (const Name& n : im->implementations) {
        out += ' ';
        dumpName(out, n);
      }
      if (im->inheritParents) out += " parents";
      if (im->when) {
        out += " when ";
        dumpExpr(out, im->when);
      }
      dumpDoc(out, im->doc);
      out += ')';
      return;
    }
    case Kind::Relation: {
      auto* r = static_cast<const Relation*>(s);
      out += "(relation ";
      dumpName(out, r->left);
      out += '.';
      dumpName(out, r->leftAttr);
      dumpMult(out, r->leftMult);
      out += ' ';
      dumpName(out, r->right);
      if (!r->rightAttr.empty()) {
        out += '.';
        dumpName(out, r->rightAttr);
        dumpMult(out, r->rightMult);
      }
      for (const Expr* a : r->annotations) {
        out += " @";
        dumpExpr(out, a);
      }
      dumpDoc(out, r->doc);
      out += ')';
      return;
    }
    case Kind::Typedef: {
      auto* t = static_cast<const Typedef*>(s);
      out += "(typedef ";
      dumpName(out, t->name);
      out += ' ';
      dumpName(out, t->base);
      out += ' ';
      dumpExpr(out, t->constraint);
      dumpDoc(out, t->doc);
      out += ')';
      return;
    }
    case Kind::Index: {
      auto* i = static_cast<const Index*>(s);
      out += "(index ";
      dumpName(out, i->entity);
      for (const Name& n : i->attributes) {
        out += ' ';
        dumpName(out, n);
      }
      out += ')';
      return;
    }
    INMANTA_AST_EXPRESSION_CASES:
      dumpExpr(out, static_cast<const Expr*>(static_cast<const Node*>(s)));
      return;
  }
}

}  // namespace

std::string dump(const Expr* expr) {
  std::string out;
  dumpExpr(out, expr);
  return out;
}

std::string dump(const Stmt* stmt, bool detailed) {
  std::string out;
  gDetailed = detailed;
  dumpStmt(out, stmt);
  gDetailed = false;
  return out;
}

std::string dump(const File* file, bool detailed) {
  std::string out;
  gDetailed = detailed;
  if (detailed && !file->doc.empty()) {
    out += "doc=";
    quote(out, file->doc);
    out += '\n';
  }
  for (const Stmt* st : file->statements) {
    dumpStmt(out, st);
    out += '\n';
  }
  gDetailed = false;
  return out;
}

std::optional<Name> assignedName(const Stmt* s) {
  if (s->kind != Kind::Assign) return std::nullopt;
  const Expr* target = static_cast<const Assign*>(s)->target;
  if (target->kind != Kind::VarRef) return std::nullopt;
  return static_cast<const VarRef*>(target)->name();
}

}  // namespace inmanta::compiler::ast
