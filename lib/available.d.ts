/** Whether the native binary loads on this machine, without throwing (`toolcall-stream/available`). */
export declare function checkAvailable(): { available: true } | { available: false; code: string; reason: string };
