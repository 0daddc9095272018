/* An exec by the 32-bit system call ABI (int 0x80, execve = 11) from a 64-bit program: the
 * evasion of a filter that judges only the native execve. Runs `/bin/sh -c 'touch FILE'`.
 * Built with -no-pie, so its static data (the strings and the 32-bit pointer arrays) sits below
 * 4 GiB where 32-bit pointers reach it. Used by tests/integration/supervise.rs. */
#include <stdio.h>
static char path[] = "/bin/sh", a0[] = "sh", a1[] = "-c", script[512];
static unsigned int argv32[4], envp32[1];
int main(int argc, char **argv) {
    if (argc != 2) return 2;
    snprintf(script, sizeof script, "touch %s", argv[1]);
    argv32[0] = (unsigned int)(unsigned long)a0;
    argv32[1] = (unsigned int)(unsigned long)a1;
    argv32[2] = (unsigned int)(unsigned long)script;
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(11L), "b"(path), "c"(argv32), "d"(envp32) : "memory");
    printf("int 0x80 execve returned %ld\n", ret);
    return 1;
}
