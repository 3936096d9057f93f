// Local definitions of the two libstdc++ entry points that GCC's headers make our units
// call and that only a libstdc++ newer than manylinux_2_28 allows (GLIBCXX_3.4.24)
// exports. With these in the library, its libstdc++ needs stop at GLIBCXX_3.4.21 (GCC 5).
// The linker binds our units' calls to these definitions; the version script keeps them
// local, so no other library in the process sees them.
//
// Both do what libstdc++ itself does:
// - std::__throw_bad_array_new_length (GLIBCXX_3.4.29, GCC 11): std::allocator's size
//   check (std::vector) throws std::bad_array_new_length through it;
// - the default constructor of std::stringstream (GLIBCXX_3.4.26, GCC 9; jax's
//   xla/ffi/api/api.h formats its errors with one) is the in|out constructor, which
//   libstdc++ has exported since GLIBCXX_3.4.21.
// Each is compiled only where the headers declare it, so another standard library or an
// older GCC gets neither.

#include <new>
#include <sstream>

#if defined(__GLIBCXX__) && defined(_GLIBCXX_RELEASE)

#if _GLIBCXX_RELEASE >= 11
namespace std {
[[noreturn]] void __throw_bad_array_new_length() { throw bad_array_new_length(); }
}  // namespace std
#endif

#if _GLIBCXX_RELEASE >= 9 && _GLIBCXX_USE_CXX11_ABI
namespace jax_glm_nope {
// std::__cxx11::basic_stringstream<char>::basic_stringstream(), the complete-object
// constructor, by its mangled name: C++ cannot define a library constructor's symbol.
void construct_default_stringstream(std::stringstream* self) __asm__(
    "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev");
void construct_default_stringstream(std::stringstream* self) {
  new (self) std::stringstream(std::ios_base::in | std::ios_base::out);
}
}  // namespace jax_glm_nope
#endif

#endif
