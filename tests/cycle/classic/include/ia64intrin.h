/* <ia64intrin.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
enum { _IA64_REG_AR_ITC = 3116 };
unsigned __int64 __getReg(const int reg);
