package io.srdnic.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import java.util.Map;

/** Netty's default options plus {@link ChannelOption#ALLOW_HALF_CLOSURE} (whether a peer's FIN closes the channel or only its input). */
final class SrdnicChannelConfig extends DefaultChannelConfig {
    private volatile boolean allowHalfClosure;

    SrdnicChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.ALLOW_HALF_CLOSURE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
            return true;
        }
        return super.setOption(option, value);
    }

    boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }
}
