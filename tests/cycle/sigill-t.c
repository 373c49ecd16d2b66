/* sigill-t: the program's own signal handling survives cycle.h.
 * SPDX-License-Identifier: MIT
 *
 * The guard handles the signal a counter read raises (SIGILL on ARM and
 * RISC-V, SIGSEGV on x86).  Faults that are not counter reads must reach the
 * program's handler, or kill the process as before when it has none.
 */
#include <setjmp.h>

#include "engine-test.h"
#include "tap/basic.h"

static sigjmp_buf escape;
static volatile sig_atomic_t caught;

static void program_handler(int sig)
{
	(void)sig;
	caught++;
	siglongjmp(escape, 1);
}

static void fault_unhandled(void)
{
	(void)getticks();
	genuine_fault();
}

static void fault_unhandled_guarded(void)
{
	pretend_granted(0);
	genuine_fault();
}

#if defined(__arm__) || defined(__riscv)
#include <sys/mman.h>

/* Two pages, the second inaccessible, and the halfword hw written at the
 * end of the first, with the bytes bytes (n of them) at its start: what a
 * decoder reads past the halfword faults.  NULL on failure. */
static unsigned char *before_a_hole(long page, uint16_t hw, const void *bytes,
				    size_t n)
{
	unsigned char *mem = mmap(NULL, 2 * (size_t)page,
				  PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	memcpy(mem, bytes, n);
	memcpy(mem + page - 2, &hw, sizeof(hw));
	if (mprotect(mem + page, (size_t)page, PROT_NONE) != 0)
		return NULL;
	return mem;
}
#endif

#if defined(__arm__)
/* A 16-bit Thumb UDF (udf #0) ending the page: the guard must not read
 * past the instruction. */
static int udf_at_page_end(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *code = before_a_hole(page, 0xde00, "", 0);
	void (*thumb)(void);

	if (!code)
		return 0;
	__builtin___clear_cache((char *)code, (char *)code + page);
	if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0)
		return 0;
	thumb = (void (*)(void))(uintptr_t)(code + page - 2 + 1);
	if (sigsetjmp(escape, 1) == 0)
		thumb();
	munmap(code, 2 * (size_t)page);
	return 1;
}
#elif defined(__riscv)
/* The guard's decoder on compressed code: rdcycle a0 (0xc0002573) at a
 * 2-byte boundary, and a 16-bit c.nop ending the page: neither is read
 * past its end. */
static int riscv_decodes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint16_t rdcycle[3] = {0x0001, 0x2573, 0xc000}; /* c.nop first */
	unsigned char *mem = before_a_hole(page, 0x0001, rdcycle,
					   sizeof(rdcycle));
	struct cycle_impl_regs r;
	int reg = -1, ok;

	if (!mem)
		return 0;
	memset(&r, 0, sizeof(r));
	r.pc = (uintptr_t)(mem + 2);
	ok = cycle_impl_decode_insn(&r, &reg) == 0 && reg == 10;
	r.pc = (uintptr_t)(mem + page - 2);
	ok = ok && cycle_impl_decode_insn(&r, &reg) == -1;
	munmap(mem, 2 * (size_t)page);
	return ok;
}
#endif

static void raise_guarded(void)
{
	pretend_granted(0);
	raise(CYCLE_IMPL_TRAP_SIGNAL);
}

int main(void)
{
	struct sigaction sa, now;
	int sig = CYCLE_IMPL_TRAP_SIGNAL, status;
	unsigned traps;
	char why[80];

#if !defined(CYCLE_IMPL_ENGINE) || CYCLE_IMPL_TRAP_SIGNAL == 0
	tap_skip_all("no counter here can trap");
#endif
	tap_plan(9);

	status = in_child(fault_unhandled);
	tap_ok(status == 1000 + sig,
	       "a genuine fault still kills a program without a handler (%d)",
	       status);
	status = in_child(fault_unhandled_guarded);
	tap_ok(status == 1000 + sig,
	       "... also while the trap guard is installed (%d)", status);
	status = in_child(raise_guarded);
	tap_ok(status == 1000 + sig,
	       "... and a raised signal is not taken for a counter read (%d)",
	       status);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = program_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);

	(void)getticks(); /* the choice probes, possibly trapping */
	tap_ok(caught == 0, "the choice's probe reads never reach the program");
	sigaction(sig, NULL, &now);
	if (CYCLE_IMPL_REVOCABLE(CYCLE_IMPL_INDEX_OF(cycle_impl_state.mode)))
		tap_ok(guard_installed(),
		       "the guard stays for a revocable counter");
	else
		tap_ok(!(now.sa_flags & SA_SIGINFO) &&
		       now.sa_handler == program_handler,
		       "the program's handler is back after the choice");
	if (sigsetjmp(escape, 1) == 0)
		genuine_fault();
	tap_ok(caught == 1, "a genuine fault reaches the program's handler");

	pretend_granted(0); /* guard installed over the program's handler */
	if (counter0_traps()) {
		traps = cycle_impl_state.traps;
		/* A guard that passed it on: the handler lands here, once. */
		if (sigsetjmp(escape, 1) == 0)
			(void)guarded_read(0); /* as getticks() after its check */
		tap_ok(caught == 1 && cycle_impl_state.traps == traps + 1,
		       "a trapping counter read does not reach it, the guard "
		       "completes it");
	} else {
		snprintf(why, sizeof(why), "%s reads here: no trap to stage",
			 cycle_impl_name(0));
		tap_skip(why);
	}
	if (sigsetjmp(escape, 1) == 0)
		genuine_fault();
	tap_ok(caught == 2, "a genuine fault still reaches it through the guard");
#if defined(__arm__)
	tap_ok(udf_at_page_end() && caught == 3,
	       "a 16-bit Thumb UDF that ends a page reaches it too (%d)",
	       (int)caught);
#elif defined(__riscv)
	tap_ok(riscv_decodes(), "rdcycle at a 2-byte boundary is decoded, and "
	       "a 16-bit instruction that ends a page is not read past");
#else
	tap_skip("the page-end case is ARMv7's and RISC-V's");
#endif
	return tap_done();
}
