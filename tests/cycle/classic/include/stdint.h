/* <stdint.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
