<?php

declare(strict_types=1);

namespace App\Mail;

use InvalidArgumentException;

interface Transport
{
    public function send(string $to, string $subject, string $body): bool;
}

final class Mailer
{
    private array $sent = [];

    public function __construct(private Transport $transport, private string $from)
    {
        if (!filter_var($from, FILTER_VALIDATE_EMAIL)) {
            throw new InvalidArgumentException("Invalid sender address: {$from}");
        }
    }

    public function send(string $to, string $subject, string $body): bool
    {
        $ok = $this->transport->send($to, $subject, $this->footer($body));
        if ($ok) {
            $this->sent[] = ['to' => $to, 'subject' => $subject];
        }
        return $ok;
    }

    public function sentCount(): int
    {
        return count($this->sent);
    }

    private function footer(string $body): string
    {
        return $body . "\n\n-- \nSent by " . $this->from;
    }
}

function mailer_from_env(Transport $transport): Mailer
{
    $from = getenv('MAIL_FROM') ?: 'noreply@example.com';
    return new Mailer($transport, $from);
}
