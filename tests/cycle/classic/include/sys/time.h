/* <sys/time.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
#if defined(__sun) /* Solaris */
typedef long long hrtime_t;
hrtime_t gethrtime(void);
#endif
#if defined(_AIX)
typedef struct { int flag; unsigned int tb_high, tb_low; } timebasestruct_t;
#define TIMEBASE_SZ (sizeof(timebasestruct_t))
int read_real_time(timebasestruct_t *t, size_t size);
int time_base_to_time(timebasestruct_t *t, size_t size);
#endif
