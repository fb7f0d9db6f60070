// Test-only, never shipped: a stand-in for Windows' bcryptprimitives.dll under
// Wine. Rust >= 1.78 std imports ProcessPrng from it (Windows 10 and later have
// it); Debian's Wine 8 has no such DLL, so no Rust DLL loads there without
// this. It forwards to BCryptGenRandom with the system RNG, which Wine has.
// Built with mingw-w64 and put into the Wine prefix by scripts/test-platforms.mjs.
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
