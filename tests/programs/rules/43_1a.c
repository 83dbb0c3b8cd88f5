/* Rule 43_1a (allocation under a spinlock: one flag for all spinlocks). */
typedef struct spinlock { int slock; } spinlock_t;
void _spin_lock(spinlock_t *l);
void _spin_unlock(spinlock_t *l);
void *kmalloc(unsigned long size, unsigned int flags);
void *__kmalloc(unsigned long size, unsigned int flags);
void *vmalloc_user(unsigned long size);
spinlock_t s, t;
void *p;

void bad_WrongFlags(void) { _spin_lock(&s); p = kmalloc(10, 208); _spin_unlock(&s); }
/* Unlocking any spinlock clears the single flag. */
void safe_WrongFlags(void) { _spin_lock(&s); p = __kmalloc(10, 32); _spin_unlock(&t); p = kmalloc(10, 208); }
void bad_Nonatomic(void) { _spin_lock(&s); p = vmalloc_user(10); }
void safe_Nonatomic(void) { p = vmalloc_user(10); }
int main(void) { return 0; }
