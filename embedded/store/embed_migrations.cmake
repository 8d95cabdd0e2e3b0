# Writes OUTPUT, a C++ file holding every migrations/NNN_name.sql of SOURCE_DIR as a raw string,
# in number order (cmake -DSOURCE_DIR=… -DOUTPUT=… -P embed_migrations.cmake).
file(GLOB files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/[0-9][0-9][0-9]_*.sql)
list(SORT files)
set(body "")
foreach(f ${files})
  string(REGEX MATCH "^([0-9]+)_(.*)\\.sql$" _ ${f})
  math(EXPR number "${CMAKE_MATCH_1}")
  file(READ ${SOURCE_DIR}/${f} sql)
  string(APPEND body "      {${number}, \"${CMAKE_MATCH_2}\", R\"inmanta_sql(${sql})inmanta_sql\"},\n")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from embedded/store/migrations by embed_migrations.cmake; do not edit.
#include \"embedded/store/database.h\"

namespace inmanta::store::sql {

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all = {
${body}  };
  return all;
}

}  // namespace inmanta::store::sql
")
# rewrite only on change, so an unchanged schema does not rebuild the library
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
file(REMOVE ${OUTPUT}.tmp)
