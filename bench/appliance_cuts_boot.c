/* The power-cut cycles' initramfs (bench/appliance_cuts.py): the few modules a virtio disk with
 * ext4 needs, the root mounted (read-only when the kernel's command line says "ro" last), the
 * loopback interface up (the hub and its broker talk over it), then the command line's init run
 * on it. Debian's own initramfs does the same with udev and a settle,
 * which under TCG costs more than ten seconds of every boot; the kernel, the root filesystem and
 * everything after the mount are the real ones.
 *
 * The modules are in the archive at the paths below, in an order that meets their dependencies.
 * Built static on the host: cc -static -Os -o init appliance_cuts_boot.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *const MODULES[] = {
    "virtio.ko", "virtio_ring.ko", "virtio_pci_legacy_dev.ko", "virtio_pci_modern_dev.ko",
    "virtio_pci.ko", "virtio_blk.ko", "crc16.ko", "mbcache.ko", "jbd2.ko",
    "crc32c_generic.ko", "ext4.ko",
};

static void say(const char *what) {
    int fd = open("/dev/console", O_WRONLY | O_NOCTTY);
    if (fd >= 0) {
        dprintf(fd, "uno-cut-boot: %s\n", what);
        close(fd);
    }
}

static int read_only(void) {
    char line[4096] = {0};
    int fd = open("/proc/cmdline", O_RDONLY);
    int ro = 0;
    if (fd < 0) return 0;
    ssize_t got = read(fd, line, sizeof line - 1);
    close(fd);
    if (got <= 0) return 0;
    for (char *word = strtok(line, " \n"); word != NULL; word = strtok(NULL, " \n")) {
        if (strcmp(word, "--") == 0) break;
        if (strcmp(word, "ro") == 0) ro = 1;
        if (strcmp(word, "rw") == 0) ro = 0;
    }
    return ro;
}

static void loopback_up(void) {
    struct ifreq up = {0};
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    strcpy(up.ifr_name, "lo");
    up.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
    if (fd < 0 || ioctl(fd, SIOCSIFFLAGS, &up) != 0) say("cannot bring the loopback up");
    if (fd >= 0) close(fd);
}

int main(int argc, char **argv) {
    (void)argc;
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    mount("proc", "/proc", "proc", 0, NULL);
    for (size_t i = 0; i < sizeof MODULES / sizeof MODULES[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "/modules/%s", MODULES[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) != 0) say(path);
        if (fd >= 0) close(fd);
    }
    struct stat st;
    const struct timespec pause = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 1000 && stat("/dev/vda", &st) != 0; i++) nanosleep(&pause, NULL);
    if (mount("/dev/vda", "/root", "ext4", read_only() ? MS_RDONLY : 0, NULL) != 0) {
        say("cannot mount /dev/vda");
        return 1;
    }
    loopback_up();
    umount("/proc");
    umount("/dev");
    if (chdir("/root") != 0 || mount(".", "/", NULL, MS_MOVE, NULL) != 0 || chroot(".") != 0
        || chdir("/") != 0) {
        say("cannot move to the root");
        return 1;
    }
    argv[0] = "sh";
    execv("/bin/sh", argv);
    say("cannot run /bin/sh");
    return 1;
}
