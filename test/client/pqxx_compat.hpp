// What differs between the libpqxx versions the clients are built with:
// 6.4 (Debian 12), 7.10 (Debian 13) and 8.0 (Debian unstable).  7.10
// deprecates exec_prepared() for exec(prepped, params); 8.0 needs C++20 (the
// Makefile picks the language level) and returns field_ref / string_view
// where 6.4 returned field / std::string, which `auto` and std::string(...)
// absorb at the call sites.
#pragma once

#include <pqxx/pqxx>
#include <utility>

namespace sf {

template <typename... Args>
pqxx::result exec_prepared(pqxx::transaction_base &tx, const char *statement, Args &&...args) {
#if PQXX_VERSION_MAJOR > 7 || (PQXX_VERSION_MAJOR == 7 && PQXX_VERSION_MINOR >= 10)
  return tx.exec(pqxx::prepped{statement}, pqxx::params{std::forward<Args>(args)...});
#else
  return tx.exec_prepared(statement, std::forward<Args>(args)...);
#endif
}

}  // namespace sf
