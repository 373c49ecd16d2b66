/* <windows.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
typedef long long LONGLONG;
typedef union {
	struct { unsigned long LowPart; long HighPart; } u;
	LONGLONG QuadPart;
} LARGE_INTEGER;
