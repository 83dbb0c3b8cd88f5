/* Rule 10_1a (allocation in interrupt context: local interrupts disabled). */
void local_irq_disable(void);
void local_irq_enable(void);
void *kmalloc(unsigned long size, unsigned int flags);
void *p;

void bad_WrongFlags(void) { local_irq_disable(); p = kmalloc(4, 208); local_irq_enable(); }
void safe_WrongFlags(void) { local_irq_disable(); p = kmalloc(4, 32); local_irq_enable(); p = kmalloc(4, 208); }
int main(void) { return 0; }
