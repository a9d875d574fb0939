import type { DeliveryRepository } from './store/deliveries.js';

/** policy.maxDeliveries: past it the oldest deliveries go (never one with a send under way), said once. */
export class DeliveryCap {
  private dropped = false;

  constructor(
    private readonly deliveries: Pick<DeliveryRepository, 'dropOldest'>,
    /** Infinity keeps all. */
    private readonly max: number,
    /** The deliveries with a send under way. */
    private readonly busy: ReadonlyMap<string, unknown>,
    private readonly onFirstDrop: ((dropped: number) => void) | undefined,
  ) {}

  keep(): void {
    if (!Number.isFinite(this.max)) return;
    const dropped = this.deliveries.dropOldest(this.max, this.busy);
    if (dropped > 0 && !this.dropped) {
      this.dropped = true;
      this.onFirstDrop?.(dropped);
    }
  }
}
