#include "ast/ast.h"

#include <cstdio>

namespace inmanta::compiler::ast {

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

void quote(std::string& out, std::string_view s) {
  out += '\'';
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\'' || c == '\\') { out += '\\'; out += c; }
    else out += c;
  }
  out += '\'';
}

void dumpExpr(std::string& out, const Expr* e);
void dumpStmt(std::string& out, const Stmt* s);

void dumpArgs(std::string& out, const Arguments& a) {
  for (const KwArg& kw : a.kwargs) {
    out += ' ';
    out += kw.name.text;
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
  switch (e->kind) {
    case Kind::Literal: {
      const auto& v = static_cast<const Literal*>(e)->value;
      if (std::holds_alternative<NullValue>(v)) out += "null";
      else if (auto* b = std::get_if<bool>(&v)) out += *b ? "true" : "false";
      else if (auto* i = std::get_if<int64_t>(&v)) out += std::to_string(*i);
      else if (auto* d = std::get_if<double>(&v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        out += buf;
        out += 'f';
      } else quote(out, std::get<std::string>(v));
      return;
    }
    case Kind::StringFormat: {
      auto* s = static_cast<const StringFormat*>(e);
      out += "(fmt ";
      quote(out, s->text);
      for (const auto& p : s->parts) {
        out += ' ';
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
        dumpExpr(out, r.ref);
      }
      out += ')';
      return;
    }
    case Kind::Regex:
      out += "(regex ";
      quote(out, static_cast<const Regex*>(e)->pattern);
      out += ')';
      return;
    case Kind::VarRef:
      out += static_cast<const VarRef*>(e)->name.text;
      return;
    case Kind::AttrRef: {
      auto* a = static_cast<const AttrRef*>(e);
      dumpExpr(out, a->object);
      out += '.';
      out += a->attribute.text;
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
      out += d->attribute.text;
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
      out += c->function.text;
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
      out += c->type.text;
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::IndexLookup: {
      auto* c = static_cast<const IndexLookup*>(e);
      out += "(index ";
      out += c->type.text;
      dumpArgs(out, c->named);
      out += ')';
      return;
    }
    case Kind::ShortIndexLookup: {
      auto* c = static_cast<const ShortIndexLookup*>(e);
      out += "(index ";
      dumpExpr(out, c->object);
      out += '.';
      out += c->relation.text;
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
      out += c->variable.text;
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
    case Kind::ExprStmt: case Kind::Assign: case Kind::For: case Kind::If: case Kind::Import:
    case Kind::Entity: case Kind::Implementation: case Kind::Implement: case Kind::Relation:
    case Kind::Typedef: case Kind::Index:
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
  switch (s->kind) {
    case Kind::ExprStmt:
      dumpExpr(out, static_cast<const ExprStmt*>(s)->expr);
      return;
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
      out += f->variable.text;
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
      out += i->module.text;
      out += " as ";
      out += i->alias.text;
      out += ')';
      return;
    }
    case Kind::Entity: {
      auto* en = static_cast<const Entity*>(s);
      out += "(entity ";
      out += en->name.text;
      for (const Name& p : en->parents) {
        out += " <";
        out += p.text;
      }
      for (const Attribute& a : en->attributes) {
        out += " (";
        out += a.type.base.text;
        if (a.type.multi) out += "[]";
        if (a.type.nullable) out += '?';
        out += ' ';
        out += a.name.text;
        if (a.defaultValue) {
          out += " = ";
          dumpExpr(out, a.defaultValue);
        } else if (a.removeDefault) {
          out += " undef";
        }
        out += ')';
      }
      out += ')';
      return;
    }
    case Kind::Implementation: {
      auto* im = static_cast<const Implementation*>(s);
      out += "(implementation ";
      out += im->name.text;
      out += " for ";
      out += im->entity.text;
      dumpBlock(out, "do", im->body);
      out += ')';
      return;
    }
    case Kind::Implement: {
      auto* im = static_cast<const Implement*>(s);
      out += "(implement ";
      out += im->entity.text;
      out += " using";
      for (const Name& n : im->implementations) {
        out += ' ';
        out += n.text;
      }
      if (im->inheritParents) out += " parents";
      if (im->when) {
        out += " when ";
        dumpExpr(out, im->when);
      }
      out += ')';
      return;
    }
    case Kind::Relation: {
      auto* r = static_cast<const Relation*>(s);
      out += "(relation ";
      out += r->left.text;
      out += '.';
      out += r->leftAttr.text;
      dumpMult(out, r->leftMult);
      out += ' ';
      out += r->right.text;
      if (!r->rightAttr.empty()) {
        out += '.';
        out += r->rightAttr.text;
        dumpMult(out, r->rightMult);
      }
      for (const Expr* a : r->annotations) {
        out += " @";
        dumpExpr(out, a);
      }
      out += ')';
      return;
    }
    case Kind::Typedef: {
      auto* t = static_cast<const Typedef*>(s);
      out += "(typedef ";
      out += t->name.text;
      out += ' ';
      out += t->base.text;
      out += ' ';
      dumpExpr(out, t->constraint);
      out += ')';
      return;
    }
    case Kind::Index: {
      auto* i = static_cast<const Index*>(s);
      out += "(index ";
      out += i->entity.text;
      for (const Name& n : i->attributes) {
        out += ' ';
        out += n.text;
      }
      out += ')';
      return;
    }
    default:
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

std::string dump(const Stmt* stmt) {
  std::string out;
  dumpStmt(out, stmt);
  return out;
}

}  // namespace inmanta::compiler::ast
